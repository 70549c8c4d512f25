import { railAttemptsOf } from '../../persistence/partner/rail-attempts-store';
import { isUnderReview } from '../../persistence/partner/payment-review-flag';
import { workflowUiUrl } from '../../services/stuck-payments';
import { callerOf, frameOf, html, notFoundText, type PortalRoutes } from './kit';
import { paymentDetailPage } from './payment-detail-page';
import { paymentTimeline } from './payment-timeline';
import { findPayment, listPayments, relatedOf } from './payments-data';
import { parsePaymentFilters } from './payments-filters';
import { paymentsPage } from './payments-page';

export const PAYMENTS_PATH = '/payments';

/**
 * Payments (issue 21): charges, payouts, refunds, disputes and settlements of the session's merchant
 * in its environment, with the API lists' filters and cursors, and each payment's page (the object as
 * the API shows it, its timeline from the event log, related objects, its workflow in the Temporal
 * UI, and a plain "Under review" notice while it has an open payment review, issue 29:
 * src/persistence/partner/payment-review-flag.ts). Everything goes through the API's stores and mappers
 * (src/web/portal/payments-data.ts), scoped by callerOf(session): another merchant's or the other
 * environment's id is 404.
 */
export const paymentsRoutes: PortalRoutes = (router, kit) => {
  const { orm } = kit.deps;

  router.get(PAYMENTS_PATH, async (ctx) => {
    const session = await kit.page(ctx);
    if (!session) return;
    const filters = parsePaymentFilters({ ...ctx.query });
    const { rows, nextCursor } = await listPayments(orm, callerOf(session), filters);
    html(ctx, 200, paymentsPage(frameOf(session, PAYMENTS_PATH), filters, rows, nextCursor));
  });

  router.get(`${PAYMENTS_PATH}/:id`, async (ctx) => {
    const session = await kit.page(ctx);
    if (!session) return;
    const caller = callerOf(session);
    const payment = await findPayment(orm, caller, ctx.params.id ?? '');
    if (!payment) return notFoundText(ctx);
    const [related, timeline, underReview, attempts] = await Promise.all([
      relatedOf(orm, caller, payment),
      paymentTimeline(orm, caller, payment),
      isUnderReview(orm, payment.view.id, caller.merchantId, caller.environment),
      // Issue 46: its attempts at its partners (a payment of this merchant: findPayment checked it).
      railAttemptsOf(orm.em.fork(), payment.view.id),
    ]);
    // Issue 47: the Temporal UI is the operators' (it can terminate and reset workflows): linked only on opt-in.
    const ui = kit.options.portalTemporalUiLink ? kit.options.temporalUi : undefined;
    // Every payment's workflow id is its own id (src/temporal/*-start.ts).
    const workflowUrl = ui ? workflowUiUrl(ui.baseUrl, ui.namespace, payment.view.id) : null;
    html(ctx, 200, paymentDetailPage(frameOf(session, `${PAYMENTS_PATH}/${payment.view.id}`), payment, related, timeline, workflowUrl, underReview, attempts));
  });
};

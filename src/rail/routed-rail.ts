import type { PartnerName } from '../domain/rail-routes';
import { RailUnavailable, type PartnerRail, type RailRequest, type RailResource, type RailStatus, type RailSubmitResult } from './partner-rail';

/**
 * The worker's live rail when it has more than one partner (issue 45): one PartnerRail that sends
 * each call to the partner its reference belongs to. The partner was decided when the payment was
 * created (RAIL_ROUTES, src/domain/rail-routes.ts) and copied onto its reference when the reference
 * was chosen, so every retry, status poll, restart and review of a payment asks the same partner,
 * whatever the routes say later. A reference of a partner this worker does not have is a transient
 * trouble (RailUnavailable: retried, and a worker that has it answers).
 */
export class RoutedRail implements PartnerRail {
  constructor(
    private readonly partners: Partial<Record<PartnerName, PartnerRail>>,
    private readonly partnerOf: (referenceId: string) => Promise<PartnerName>,
  ) {}

  async submit(resource: RailResource, request: RailRequest): Promise<RailSubmitResult> {
    return (await this.railOf(request.referenceId)).submit(resource, request);
  }

  async status(resource: RailResource, referenceId: string): Promise<RailStatus> {
    return (await this.railOf(referenceId)).status(resource, referenceId);
  }

  /** The partners this rail has, by name. */
  names(): PartnerName[] {
    return (Object.keys(this.partners) as PartnerName[]).filter((name) => this.partners[name] !== undefined);
  }

  private async railOf(referenceId: string): Promise<PartnerRail> {
    const name = await this.partnerOf(referenceId);
    const rail = this.partners[name];
    if (!rail) throw new RailUnavailable(`reference ${referenceId} was sent to the ${name} partner, and this worker has no ${name} rail (its settings are not set here): another worker may answer`);
    return rail;
  }
}

/** What opened a payment review (src/domain/payment-review.ts): its own file, so that the review's carry (review-wait.ts) names it without a cycle. */
export type PaymentReviewSource = 'late_watch' | 'callback' | 'reconciliation';
export const PAYMENT_REVIEW_SOURCES: readonly PaymentReviewSource[] = ['late_watch', 'callback', 'reconciliation'];

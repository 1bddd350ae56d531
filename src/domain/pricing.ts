import { convertMinor, sendingForReceiving, type Rate } from './rates.ts';

/** A fee schedule for one sending currency: a fixed part and a variable part in basis points. */
export interface FeeSchedule {
  fixedMinor: bigint;
  variableBps: bigint;
}

export interface Price {
  totalSendingMinor: bigint;
  totalReceivingMinor: bigint;
  feesMinor: bigint;
  variableFeeMinor: bigint;
}

/** The variable fee, computed exactly and rounded once (half up) to the smallest unit. */
export function variableFee(sendingMinor: bigint, schedule: FeeSchedule): bigint {
  return (sendingMinor * schedule.variableBps + 5_000n) / 10_000n;
}

/**
 * Fees are taken on the sending side: received = convert(totalSending − fees). Returns undefined when the
 * amount does not even cover the fees.
 */
export function priceSending(totalSendingMinor: bigint, rate: Rate, schedule: FeeSchedule): Price | undefined {
  const variable = variableFee(totalSendingMinor, schedule);
  const fees = schedule.fixedMinor + variable;
  if (totalSendingMinor <= fees) return undefined;
  const receiving = convertMinor(totalSendingMinor - fees, rate);
  if (receiving <= 0n) return undefined;
  return { totalSendingMinor, totalReceivingMinor: receiving, feesMinor: fees, variableFeeMinor: variable };
}

/**
 * Receiver-locked: the smallest total sending amount whose net converts to at least the locked amount.
 * The receiver gets exactly the locked amount; rounding in the sender's favour is not possible, so the
 * search goes up from the closed-form estimate until it covers the amount (a few steps at most).
 */
export function priceReceiving(totalReceivingMinor: bigint, rate: Rate, schedule: FeeSchedule): Price | undefined {
  if (totalReceivingMinor <= 0n) return undefined;
  const net = sendingForReceiving(totalReceivingMinor, rate);
  // total − (fixed + total·bps/10⁴) ≥ net  ⇒  total ≥ (net + fixed) · 10⁴ / (10⁴ − bps)
  const estimate = ((net + schedule.fixedMinor) * 10_000n) / (10_000n - schedule.variableBps);
  let total = estimate > 2n ? estimate - 2n : 1n;
  for (let step = 0; step < 16; step++, total++) {
    const variable = variableFee(total, schedule);
    const fees = schedule.fixedMinor + variable;
    if (total > fees && convertMinor(total - fees, rate) >= totalReceivingMinor) {
      return { totalSendingMinor: total, totalReceivingMinor, feesMinor: fees, variableFeeMinor: variable };
    }
  }
  throw new Error('priceReceiving did not converge');
}

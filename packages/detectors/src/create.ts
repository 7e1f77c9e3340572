import { ExponentialPhi, type ExponentialPhiOptions } from './exponential-phi.js';
import type { FailureDetector } from './failure-detector.js';
import { FixedTimeout, type FixedTimeoutOptions } from './fixed-timeout.js';
import { PhiAccrual, type PhiAccrualOptions } from './phi-accrual.js';

/** A detector described as data (for configuration files and presets). */
export type DetectorSpec =
  | ({
      /** Builds a {@link FixedTimeout}; the other fields are its {@link FixedTimeoutOptions}. */
      readonly kind: 'fixed-timeout';
    } & FixedTimeoutOptions)
  | ({
      /** Builds a {@link PhiAccrual}; the other fields are its {@link PhiAccrualOptions}. */
      readonly kind: 'phi-accrual';
    } & PhiAccrualOptions)
  | ({
      /** Builds an {@link ExponentialPhi}; the other fields are its {@link ExponentialPhiOptions}. */
      readonly kind: 'exponential-phi';
    } & ExponentialPhiOptions);

/** Builds the detector a spec describes (a new one per monitored member). */
export function createFailureDetector(spec: DetectorSpec): FailureDetector {
  switch (spec.kind) {
    case 'fixed-timeout':
      return new FixedTimeout(spec);
    case 'phi-accrual':
      return new PhiAccrual(withoutKind(spec));
    case 'exponential-phi':
      return new ExponentialPhi(withoutKind(spec));
  }
}

function withoutKind<T extends { readonly kind: string }>(spec: T): Omit<T, 'kind'> {
  const { kind: _kind, ...options } = spec;
  return options;
}

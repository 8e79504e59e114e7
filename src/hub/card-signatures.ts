// What the hub makes of its agents' card signatures (A2A §8.4): each card checked against the
// keys its operator trusts (`hub --trust-key`), a registration refused when signed cards are
// required and the card does not verify, and the verdict the API and the console show.

import type { PublicJwk } from '../a2a/wire/card-keys.js';
import { signatureHeaders, verifyCard } from '../a2a/wire/card-signature.js';
import { LiteError } from '../errors.js';

export interface CardSignaturePolicy {
  /** Public keys the operator trusts; a card verifies when one of its signatures is by one of them. */
  trustKeys: readonly PublicJwk[];
  /** Refuse to register an agent whose card does not verify (CARD_SIGNATURE_INVALID). */
  required: boolean;
}

/** An agent's card signature as the API shows it. */
export interface CardSignatureStatus {
  signed: boolean;
  verified: boolean;
  kid?: string;
  alg?: string;
  /** Why it did not verify. */
  problem?: string;
}

/** The hub's view of card signatures; without a policy, only whether a card is signed. */
export class CardSignatures {
  // The stored card objects are replaced, never changed: a verdict holds as long as its card.
  private readonly verdicts = new WeakMap<object, CardSignatureStatus>();

  constructor(private readonly policy: CardSignaturePolicy = { trustKeys: [], required: false }) {}

  get required(): boolean {
    return this.policy.required;
  }

  /** Throws CARD_SIGNATURE_INVALID, naming agent `id` and what is wrong, when signed cards are required and `card` does not verify. */
  admit(card: Record<string, unknown>, id: string): void {
    if (!this.policy.required) return;
    const status = this.statusOf(card);
    // The words come first: a WebSocket close carries only 123 bytes of them to a dialled-in agent.
    if (!status.verified) throw new LiteError('CARD_SIGNATURE_INVALID', `agent ${id}: ${status.problem ?? 'the card does not verify'}; this hub takes only cards signed by a key it trusts`);
  }

  /** Whether `card` is signed, by which key, and whether that verified against the trusted keys. */
  statusOf(card: Record<string, unknown>): CardSignatureStatus {
    const known = this.verdicts.get(card);
    if (known !== undefined) return known;
    const status = this.judge(card);
    this.verdicts.set(card, status);
    return status;
  }

  private judge(card: Record<string, unknown>): CardSignatureStatus {
    if (this.policy.trustKeys.length === 0) {
      const [first] = signatureHeaders(card);
      const signed = Array.isArray(card.signatures) && card.signatures.length > 0;
      return { signed, verified: false, ...(first === undefined ? {} : { kid: first.kid, alg: first.alg }), problem: signed ? 'the hub trusts no key to check it with (hub --trust-key FILE)' : 'the card is not signed' };
    }
    const verdict = verifyCard(card, this.policy.trustKeys);
    const first = verdict.checks[0];
    const kid = verdict.kid ?? first?.kid;
    const alg = verdict.alg ?? first?.alg;
    return { signed: verdict.signed, verified: verdict.verified, ...(kid === undefined ? {} : { kid }), ...(alg === undefined ? {} : { alg }), ...(verdict.problem === undefined ? {} : { problem: verdict.problem }) };
  }
}

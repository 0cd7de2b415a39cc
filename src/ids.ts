import { randomBytes, randomFillSync } from 'node:crypto';
import { V7Generator } from 'uuidv7';

/** Random words for id generation, drawn from the CSPRNG a few thousand at a time instead of once per id. */
class PooledRandom {
  private readonly pool = new Uint32Array(2048);
  private next = this.pool.length;

  nextUint32(): number {
    if (this.next === this.pool.length) {
      randomFillSync(this.pool);
      this.next = 0;
    }
    return this.pool[this.next++] as number;
  }
}

const generator = new V7Generator(new PooledRandom());

/** Time-ordered, URL-safe, unique across nodes. */
export const newId = (): string => generator.generate().toString();

/** As newId, made at `ms` (a row's own time): its time is the row's, which compact frames leave out (unless ids made earlier held a later one). */
export const newIdAt = (ms: number): string => generator.generateOrResetWithTs(ms).toString();

export const newSecret = (bytes = 32): string => randomBytes(bytes).toString('base64url');

/** Standard Webhooks secrets are `whsec_` + standard base64 (its libraries refuse `-` and `_`). */
export const newWebhookSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

/** An id that sorts after every id made before `ms` and before every id made at or after it. */
export function idAt(ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}

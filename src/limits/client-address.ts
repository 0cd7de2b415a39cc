/**
 * The client's address: the socket's peer, unless `trustProxy` proxies stand in front of the
 * server. Each appends the address it saw to X-Forwarded-For, so the client is the entry
 * `trustProxy` places from the right of [...X-Forwarded-For, peer]; entries further left
 * were written by the client itself and are not believed.
 */
export function clientAddress(peer: string, forwardedFor: string, trustProxy: number): string {
  if (trustProxy === 0 || forwardedFor === '') return peer;
  const chain = forwardedFor.split(',');
  const index = chain.length - trustProxy;
  return (index >= 0 ? chain[index] : chain[0])?.trim() || peer;
}

import { describe, expect, it } from 'vitest';
import { Client, manage, request } from '../helpers/api.js';
import { MANAGE_TOKEN } from '../helpers/spawn.js';
import { connect } from '../realtime/ws-client.js';
import { twoNodesForSuite } from './two-nodes.js';

/** Tokens are remembered per node: a revocation on one node must reach the others' memory through the bus. */
describe('revoking an API token on node A', () => {
  const nodes = twoNodesForSuite({ redis: true });

  it('is refused on node B within a second, over HTTP and on its open sockets', async () => {
    const made = await manage('createtoken', { applicationid: nodes.a.appid, name: 'short-lived' }, nodes.a.api.base);
    expect(made.status).toBe(200);
    const onA = new Client(nodes.a.api.base, nodes.a.appid, made.body.data.token);
    const onB = new Client(nodes.b.base, nodes.a.appid, made.body.data.token);
    // Both nodes have verified, and so remember, the token.
    expect((await onA.get('chat/rooms')).status).toBe(200);
    expect((await onB.get('chat/rooms')).status).toBe(200);
    const socket = await connect(nodes.b.base, nodes.a.appid, made.body.data.token);

    const revoked = await request('DELETE', `${nodes.a.api.base}/api/v3/manage/tokens/${made.body.data.id}`, undefined, { 'x-manage-token': MANAGE_TOKEN });
    expect(revoked.status).toBe(200);
    const revokedAt = Date.now();
    expect((await onA.get('chat/rooms')).status).toBe(403);
    let status = 200;
    while (status !== 403 && Date.now() - revokedAt < 1000) {
      status = (await onB.get('chat/rooms')).status;
      if (status !== 403) await new Promise((r) => setTimeout(r, 50));
    }
    expect(status, 'node B still accepts the revoked token after a second').toBe(403);
    const closed = await Promise.race([socket.closed, new Promise<undefined>((r) => setTimeout(r, Math.max(0, 1000 - (Date.now() - revokedAt))))]);
    expect(closed?.code, "node B keeps the revoked token's socket open").toBe(4003);
    // The app's other token is untouched on both nodes.
    expect((await nodes.a.api.get('chat/rooms')).status).toBe(200);
    expect((await nodes.b.get('chat/rooms')).status).toBe(200);
  });
});

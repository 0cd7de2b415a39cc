import { ChatClient, CommentClient, UserClient } from 'sportstalk-sdk';
import { newApp, uid, type TestApp } from '../helpers/api.js';

/**
 * The hosted service's JavaScript SDK (sportstalk-sdk 3.17) pointed at this server through its
 * `endpoint` option, as an app would: nothing of the SDK is patched.
 */
export interface SdkApp {
  app: TestApp;
  config: { appId: string; apiToken: string; endpoint: string };
}

export async function sdkApp(settings: Record<string, unknown> = {}): Promise<SdkApp> {
  const app = await newApp(settings);
  return { app, config: { appId: app.appid, apiToken: app.token, endpoint: `${app.api.base}/api/v3` } };
}

/** A ChatClient acting as a (new) user; the user is created through the SDK. */
export async function chatAs(sdk: SdkApp, userid = uid('u'), fields: Record<string, unknown> = {}): Promise<ChatClient> {
  const client = ChatClient.init(sdk.config);
  await client.createOrUpdateUser({ userid, handle: userid, ...fields }, true);
  return client;
}

export const userClient = (sdk: SdkApp): UserClient => UserClient.init(sdk.config);

export function commentAs(sdk: SdkApp, userid: string, handle = userid): CommentClient {
  const client = CommentClient.init(sdk.config);
  client.setUser({ userid, handle });
  return client;
}

/**
 * The HTTP status of an SDK call: 200, or the failure's. Axios errors carry the response; SDK
 * services rethrow plain Errors whose message starts with the status or ends with axios's.
 */
export async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
    return 200;
  } catch (err) {
    const { response, message } = err as { response?: { status?: number }; message?: string };
    return (
      response?.status ??
      Number(
        /^(\d{3}) |status code (\d{3})/
          .exec(message ?? '')
          ?.slice(1)
          .find((s) => s !== undefined) ?? -1,
      )
    );
  }
}

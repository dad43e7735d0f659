// Raised by the serving process when a listener cannot bind; the CLI turns
// it into one line naming the setting to change.
/** A listener that could not bind: which settings choose its address. */
export class ListenError extends Error {
  constructor(
    readonly code: string,
    readonly address: { port: number; host: string; portSetting: string; hostSetting: string },
    cause: unknown,
  ) {
    super(`listen ${code} ${address.host}:${address.port}`, { cause });
    this.name = 'ListenError';
  }
}

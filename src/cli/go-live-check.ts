// One line of `slipgate doctor --go-live` (go-live.ts): what was checked,
// whether it blocks real money, and the setting or command that fixes it.

/** `blocks`: going live must wait for its fix; `not checked`: this host cannot tell (said why), not a blocker. */
export type CheckState = 'ok' | 'blocks' | 'not checked';

export interface GoLiveCheck {
  check: string;
  state: CheckState;
  detail: string;
  /** The setting or command that fixes it, for a blocker. */
  fix?: string;
}

export const ENV_FILE = '/etc/slipgate/slipgate.env';

export const ok = (check: string, detail: string): GoLiveCheck => ({ check, state: 'ok', detail });
export const blocks = (check: string, detail: string, fix: string): GoLiveCheck => ({ check, state: 'blocks', detail, fix });
export const notChecked = (check: string, why: string): GoLiveCheck => ({ check, state: 'not checked', detail: `not checked: ${why}` });

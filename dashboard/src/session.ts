// The admin token lives in this tab's sessionStorage only: gone when the tab
// closes, never in the address bar, never in localStorage or a cookie.
const TOKEN_KEY = 'slipgate.adminToken';

export function getToken(): string | null {
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function setToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function clearToken(): void {
  try {
    sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // storage disabled: nothing was kept
  }
}

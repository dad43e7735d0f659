// Records are ordered and filtered by their timestamps, and a fast machine
// writes several in one millisecond. Tests that need "after" to be strictly
// later wait for the wall clock itself to move past an instant.

/** Resolves once Date.now() is past `instantMs`. */
export async function clockPast(instantMs: number): Promise<void> {
  while (Date.now() <= instantMs) await new Promise((r) => setTimeout(r, instantMs - Date.now() + 1));
}

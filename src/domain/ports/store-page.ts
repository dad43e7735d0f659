// The page shape every listing in the storage port hands back.
export interface Page<T> {
  items: T[];
  /** Opaque cursor for the next page, null at the end. */
  next: string | null;
}

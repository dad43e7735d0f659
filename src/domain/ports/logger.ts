// The little the domain says to the operator's log. pino's Logger fits it;
// the domain does not depend on pino.
export interface Logger {
  error(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  /** Detail only an operator debugging wants (pino's debug). */
  debug?(fields: object, message: string): void;
}

/** Where the domain records what people changed (money, keys, accounts): the operator's log at INFO. */
export interface ChangeLog {
  info(fields: object, message: string): void;
}

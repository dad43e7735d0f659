// The field shapes and schema options every MongoDB schema file shares.
import { Schema } from 'mongoose';

// minimize: false keeps empty objects in `response`/`details` (stored as given).
export const OPTIONS = { versionKey: false, minimize: false, autoIndex: false, autoCreate: false, strict: true } as const;
export const Int32 = Schema.Types.Int32;
export const str = { type: String, required: true } as const;
export const optStr = { type: String, default: null } as const;
export const date = { type: Date, required: true } as const;
export const optDate = { type: Date, default: null } as const;
/** Newest first with the id as tie-breaker: the keyset order of every page. */
export const NEWEST = { createdAt: -1, _id: -1 } as const;

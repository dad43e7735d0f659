// Secret and certificate files named by domain configurations (Docker and
// Kubernetes mount secrets as files).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export type Report = (field: string | null, message: string) => void;

/** Credentials inline or from a file (Docker/Kubernetes secrets), exactly one of the two. */
export class SecretFiles {
  constructor(
    private readonly baseDir: string,
    private readonly report: Report,
  ) {}

  secret<K extends string, F extends string>(entry: Partial<Record<K | F, string>>, inlineKey: K, fileKey: F): string {
    const inline = entry[inlineKey];
    const file = entry[fileKey];
    if (inline !== undefined && file !== undefined) {
      this.report(inlineKey, `give ${inlineKey} or ${fileKey}, not both`);
      return '';
    }
    if (inline !== undefined) return inline;
    if (file === undefined) {
      this.report(inlineKey, `is required (or ${fileKey}, a file holding it)`);
      return '';
    }
    const content = this.read(fileKey, file);
    if (content === undefined) return '';
    if (content.trim() === '') this.report(fileKey, `${JSON.stringify(file)} is empty`);
    // Secret files usually end with a newline that is not part of the secret.
    return content.trim();
  }

  pem(field: string, file: string): string {
    const content = this.read(field, file);
    if (content !== undefined && !content.includes('-----BEGIN ')) this.report(field, `${JSON.stringify(file)} is not a PEM file`);
    return content ?? '';
  }

  private read(field: string, file: string): string | undefined {
    try {
      return readFileSync(resolve(this.baseDir, file), 'utf8');
    } catch (err) {
      this.report(field, `cannot read ${JSON.stringify(file)} (${errorCode(err)})`);
      return undefined;
    }
  }
}

export function errorCode(err: unknown): string {
  return (err as NodeJS.ErrnoException | undefined)?.code ?? (err instanceof Error ? err.message : 'unknown error');
}

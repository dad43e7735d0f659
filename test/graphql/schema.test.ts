// schema.graphql is the printed, sorted schema; secrets never appear in it
// except the one-time API key in mutation responses.
import { readFileSync } from 'node:fs';
import { parse, type DocumentNode } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaSdl } from '../../src/graphql/schema.js';
import { dataOf, startGraphqlApp, type GraphqlTestApp } from './helpers.js';

const SDL_FILE = new URL('../../schema.graphql', import.meta.url);

/** type name → field names (object and input types). */
function fieldsOf(doc: DocumentNode): Map<string, string[]> {
  const types = new Map<string, string[]>();
  for (const def of doc.definitions) {
    if ((def.kind === 'ObjectTypeDefinition' || def.kind === 'InputObjectTypeDefinition') && def.fields) {
      types.set(def.name.value, def.fields.map((f) => f.name.value));
    }
  }
  return types;
}

describe('GraphQL schema', () => {
  let app: GraphqlTestApp;
  beforeAll(async () => {
    app = await startGraphqlApp();
  });
  afterAll(() => app?.stop());

  it('schema.graphql is up to date (run `npm run schema` after changing the schema)', () => {
    expect(readFileSync(SDL_FILE, 'utf8')).toBe(schemaSdl());
  });

  it('has no hash, token or password fields, and the API key and webhook secrets only in mutation answers', () => {
    const doc = parse(readFileSync(SDL_FILE, 'utf8'));
    const all = [...fieldsOf(doc)].flatMap(([type, fields]) => fields.map((f) => `${type}.${f}`));
    expect(all.filter((f) => /hash|token|password/i.test(f))).toEqual([]);
    expect(all.filter((f) => /secret/i.test(f))).toEqual(['IssuedApiKey.secret', 'RegisteredWebhookEndpoint.secret']);

    // Only mutations lead to IssuedApiKey: no query path can read a secret.
    const returning = (typeName: string) =>
      doc.definitions.flatMap((def) =>
        def.kind === 'ObjectTypeDefinition'
          ? (def.fields ?? []).filter((f) => JSON.stringify(f.type).includes(`"value":"${typeName}"`)).map((f) => `${def.name.value}.${f.name.value}`)
          : [],
      );
    expect(returning('IssuedApiKey').sort()).toEqual(['CreateAccountPayload.apiKey', 'Mutation.createApiKey']);
    expect(returning('CreateAccountPayload')).toEqual(['Mutation.createAccount']);
    expect(returning('RegisteredWebhookEndpoint')).toEqual(['Mutation.addWebhookEndpoint']);
  });

  it('serves exactly the checked-in schema (introspection as ADMIN)', async () => {
    const live = dataOf(
      await app.gql('admin', '{ __schema { types { name kind fields { name } inputFields { name } } } }'),
    ).__schema.types.filter((t: { name: string; kind: string }) => !t.name.startsWith('__') && (t.kind === 'OBJECT' || t.kind === 'INPUT_OBJECT')) as {
      name: string;
      fields: { name: string }[] | null;
      inputFields: { name: string }[] | null;
    }[];
    const liveFields = new Map(live.map((t) => [t.name, (t.fields ?? t.inputFields ?? []).map((f) => f.name).sort()]));
    const sdlFields = new Map([...fieldsOf(parse(readFileSync(SDL_FILE, 'utf8')))].map(([name, fields]) => [name, [...fields].sort()]));
    expect(liveFields).toEqual(sdlFields);
  });
});

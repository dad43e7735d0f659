// The compose files in deploy/ (there is no `docker compose config` here):
// each parses as YAML, says when to choose it, and wires the services,
// volumes, healthchecks and stop grace the setup needs.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { readImageSpec } from './dockerfile.js';
import { DRAIN_BOUND_SECONDS, durationSeconds } from './drain.js';
import { RECIPE } from './nginx.js';

const DEPLOY = new URL('../../deploy/', import.meta.url);

interface Service {
  build?: string;
  image?: string;
  command?: string[];
  restart?: string;
  stop_grace_period?: string;
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
  depends_on?: string[] | Record<string, { condition: string }>;
  networks?: string[] | Record<string, { ipv4_address?: string }>;
}
interface ComposeFile {
  text: string;
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
  include?: string[];
}

function readCompose(path: URL): ComposeFile {
  const text = readFileSync(path, 'utf8');
  // Compose reads YAML 1.1 merge keys (`<<: *slipgate`).
  const doc = parseDocument(text, { merge: true, uniqueKeys: true });
  expect(doc.errors, path.pathname).toEqual([]);
  expect(doc.warnings, path.pathname).toEqual([]);
  return { text, ...(doc.toJS() as Omit<ComposeFile, 'text'>) };
}

const image = readImageSpec();
const files = {
  sqlite: readCompose(new URL('compose.sqlite.yml', DEPLOY)),
  postgres: readCompose(new URL('compose.postgres.yml', DEPLOY)),
  mongodb: readCompose(new URL('compose.mongodb.yml', DEPLOY)),
};
/** Services built from the repository's Dockerfile: slipgate itself. */
const slipgates = (file: ComposeFile) => Object.entries(file.services).filter(([, s]) => s.build === '..');
const dependencies = (s: Service) => (Array.isArray(s.depends_on) ? Object.fromEntries(s.depends_on.map((d) => [d, { condition: 'service_started' }])) : (s.depends_on ?? {}));

describe('compose files in deploy/', () => {
  it('have the services of their setup', () => {
    expect(Object.keys(files.sqlite.services)).toEqual(['slipgate']);
    expect(Object.keys(files.postgres.services).sort()).toEqual(['postgres', 'proxy', 'slipgate-1', 'slipgate-2']);
    expect(Object.keys(files.mongodb.services).sort()).toEqual(['mongo-1', 'mongo-2', 'mongo-3', 'slipgate']);
  });

  it.each(Object.entries(files))('%s: says in its header when to choose it', (_name, file) => {
    const lines = file.text.split('\n');
    const header = lines.slice(0, lines.findIndex((line) => !line.startsWith('#'))).join('\n');
    expect(header).toMatch(/^# Choose this when /m);
    expect(header).toMatch(/docs\/deploy\.md/);
  });

  it.each(Object.entries(files))('%s: slipgate restarts, stops after the drain, keeps the admin port on loopback', (_name, file) => {
    expect(slipgates(file).length).toBeGreaterThan(0);
    for (const [name, service] of slipgates(file)) {
      expect(service.restart, name).toBe('unless-stopped');
      expect(durationSeconds(service.stop_grace_period ?? '10s'), name).toBeGreaterThan(DRAIN_BOUND_SECONDS);
      for (const port of service.ports ?? []) expect(port, name).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
    }
  });

  it.each(Object.entries(files))('%s: every waited-for service has a healthcheck, every named volume is declared', (_name, file) => {
    // Services built from the Dockerfile inherit its HEALTHCHECK (node's fetch of /healthz).
    expect(image.healthcheck.cmd.join(' ')).toContain('/healthz');
    for (const [name, service] of Object.entries(file.services)) {
      for (const [target, { condition }] of Object.entries(dependencies(service))) {
        expect(file.services[target], `${name} depends on ${target}`).toBeDefined();
        if (condition === 'service_healthy') {
          const healthy = file.services[target]!.healthcheck?.test ?? (file.services[target]!.build === '..' ? image.healthcheck.cmd : []);
          expect(healthy.length, `${target} has a healthcheck`).toBeGreaterThan(0);
        }
      }
      for (const mount of service.volumes ?? []) {
        const source = mount.split(':')[0]!;
        if (source.startsWith('.')) expect(existsSync(new URL(source, DEPLOY)), `${name}: ${source}`).toBe(true);
        else expect(file.volumes, `${name}: volume ${source}`).toHaveProperty(source);
      }
    }
  });

  it('sqlite: the database file is in a volume at the directory the image writes', () => {
    const url = image.env.DATABASE_URL!;
    expect(url).toMatch(/^sqlite:\//);
    const dir = url.slice('sqlite:'.length).replace(/\/[^/]+$/, '');
    expect(image.volumes).toContain(dir);
    const { slipgate } = files.sqlite.services;
    expect(slipgate!.environment?.DATABASE_URL).toBeUndefined();
    expect(slipgate!.volumes).toContain(`slipgate-data:${dir}`);
  });

  it('postgres: two instances on the database, only nginx published, the shipped recipe mounted', () => {
    const { services } = files.postgres;
    expect(services.postgres!.healthcheck!.test).toEqual(['CMD', 'pg_isready', '-U', 'slipgate', '-d', 'slipgate']);
    expect(services.postgres!.volumes).toEqual(['postgres-data:/var/lib/postgresql/data']);
    for (const name of ['slipgate-1', 'slipgate-2']) {
      const instance = services[name]!;
      expect(instance.environment!.DATABASE_URL).toMatch(/^postgres:\/\/slipgate:\$\{POSTGRES_PASSWORD:\?[^}]+\}@postgres:5432\/slipgate$/);
      expect(instance.environment!.TRUST_PROXY_HOPS).toBe('1');
      expect(dependencies(instance).postgres).toEqual({ condition: 'service_healthy' });
      // Only the admin listener, on the host's loopback; the public one only through nginx.
      expect(instance.ports!.every((p) => p.endsWith(`:${image.env.ADMIN_PORT}`))).toBe(true);
      expect(Object.values(instance.networks as Record<string, { ipv4_address?: string }>)[0]!.ipv4_address).toMatch(/^172\.30\.7\.\d+$/);
    }
    expect(services.proxy!.ports).toEqual(['443:443']);
    expect(services.proxy!.volumes).toContain('./nginx/slipgate.conf:/etc/nginx/conf.d/default.conf:ro');
    expect(new URL('nginx/slipgate.conf', DEPLOY).pathname).toBe(RECIPE);
    // The recipe's upstream names exactly these instances, on the image's public port.
    const servers = [...readFileSync(RECIPE, 'utf8').matchAll(/^\s*server (\S+):(\d+)\b/gm)].map((m) => `${m[1]}:${m[2]}`);
    expect(servers).toEqual([`slipgate-1:${image.env.PORT}`, `slipgate-2:${image.env.PORT}`]);
  });

  it('mongodb: a replica set of three with data volumes, slipgate naming all of them', () => {
    const { services } = files.mongodb;
    const members = ['mongo-1', 'mongo-2', 'mongo-3'];
    for (const member of members) {
      expect(services[member]!.command).toEqual(['--replSet', 'rs0', '--bind_ip_all']);
      expect(services[member]!.volumes).toEqual([`${member}-data:/data/db`]);
    }
    const initiate = services['mongo-1']!.healthcheck!.test.join(' ');
    for (const member of members) expect(initiate).toContain(`host: '${member}:27017'`);
    expect(initiate).toContain("_id: 'rs0'");
    const url = new URL(services.slipgate!.environment!.DATABASE_URL!.replace(/^mongodb:\/\/[^/]+/, 'mongodb://hosts'));
    expect(url.searchParams.get('replicaSet')).toBe('rs0');
    expect(services.slipgate!.environment!.DATABASE_URL).toContain(members.map((m) => `${m}:27017`).join(','));
    expect(dependencies(services.slipgate!)['mongo-1']).toEqual({ condition: 'service_healthy' });
  });

  it('the root docker-compose.yml runs the SQLite setup', () => {
    const root = readCompose(new URL('../docker-compose.yml', DEPLOY));
    expect(root.include).toEqual(['deploy/compose.sqlite.yml']);
  });
});

/**
 * DATABASE_URL read: `sqlite:<file>`, `mysql://user:password@host:3306/database` (`mariadb:`
 * taken as `mysql:`), or several MySQL hosts in one URL for a Galera cluster; and the URL as a
 * log line shows it, without its password.
 */

/**
 * A MySQL database: `url` names one server; with several hosts in DATABASE_URL (a Galera
 * cluster), `nodes` holds one URL per node in the order given, and `url` is the first.
 */
export type DatabaseConfig =
  | { type: 'sqlite'; path: string }
  | { type: 'mysql'; url: string; database: string; nodes?: string[] };

/**
 * `scheme://userinfo@host1:port,host2:port/rest` (the libpq style of several hosts): the scheme,
 * what comes before the hosts, the hosts, and what follows them.
 */
const MULTI_HOST = /^([a-z][a-z0-9+.-]*:\/\/)([^@/?#]*@)?([^/?#]*,[^/?#]*)(.*)$/i;

/** The database a URL names, or a sentence saying what is wrong with it. */
export function parseDatabaseUrl(raw: string): DatabaseConfig | string {
  const multi = MULTI_HOST.exec(raw);
  if (multi) {
    const [, scheme, userinfo = '', hosts, rest] = multi;
    const urls = hosts.split(',').map((host) => `${scheme}${userinfo}${host.trim()}${rest}`);
    const nodes: string[] = [];
    for (const [index, url] of urls.entries()) {
      const host = hosts.split(',')[index].trim();
      if (!host) return `has an empty host in its list (node ${index + 1})`;
      const node = parseDatabaseUrl(url);
      if (typeof node === 'string') return `node ${index + 1} (${host}) ${node}`;
      if (node.type !== 'mysql') return 'may name several hosts for MySQL only';
      if (nodes.includes(node.url)) return `names ${host} twice`;
      nodes.push(node.url);
    }
    const first = parseDatabaseUrl(urls[0]) as Extract<DatabaseConfig, { type: 'mysql' }>;
    return { ...first, nodes };
  }
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length).replace(/^\/\//, '');
    return path ? { type: 'sqlite', path } : 'must name a file: sqlite:path/to/file.sqlite';
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `must be sqlite:<file> or mysql://user:password@host:3306/database, got "${redact(raw)}"`;
  }
  if (url.protocol !== 'mysql:' && url.protocol !== 'mariadb:') {
    return `has unsupported scheme "${url.protocol}" (use sqlite: or mysql:)`;
  }
  const database = decodeURIComponent(url.pathname.slice(1));
  if (!database || database.includes('/')) {
    return 'must name a database: mysql://user:password@host:3306/database';
  }
  if (!url.hostname) return 'must name a host: mysql://user:password@host:3306/database';
  return {
    type: 'mysql',
    url: url.protocol === 'mariadb:' ? raw.replace(/^mariadb:/, 'mysql:') : raw,
    database,
  };
}

/** A URL with its password, if any, as `***`. */
export function redact(raw: string): string {
  return raw.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

/** The database for a log line: the URL without its password. */
export function describeDatabase(database: DatabaseConfig): string {
  if (database.type === 'sqlite') return `sqlite:${database.path}`;
  if (database.nodes) return database.nodes.map(redact).join(' ');
  return redact(database.url);
}

/** Where to sign in, for the messages that hand a one-time password to a person. */
export function signInUrl(o: { host: string; port: number }, base?: string): string {
  if (base) return `${base.replace(/\/+$/, '')}/dashboard/login`;
  // A wildcard listen address is not somewhere to point a browser at.
  const host = o.host === '0.0.0.0' || o.host === '::' || o.host === '' ? '127.0.0.1' : o.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${o.port}/dashboard/login`;
}

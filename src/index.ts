/**
 * The package entry for TypeScript and JavaScript integrators: the typed
 * client only. The server, the CLI and the dialer are run through the
 * `leadline` command, so importing this pulls in none of them.
 */
export * from '@leadline/client';

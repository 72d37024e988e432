/**
 * The zone_sets table: every distinct set of IANA zones a called person may
 * be in, once (src/dialer/local-zones.ts explains the scheme). Sets are never
 * changed or deleted, so an id means the same zones forever.
 */
export interface ZoneStore {
  /** ids of the given zone sets (their text: zones joined by one space), inserting the new ones */
  ids(keys: readonly string[]): Promise<Map<string, number>>;
  all(): Promise<{ id: number; zones: string }[]>;
}

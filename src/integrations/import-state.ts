/**
 * Resume after an interruption: a small JSON file beside the rejects file
 * records how far the import is acknowledged, rewritten (atomically, by
 * rename) after every chunk the server has answered. A run that finds it
 * continues after that row; the chunk that was in flight when the previous
 * run died is sent again, which is safe because bulk create skips duplicates
 * (its rows then count as skipped, not created). The file is removed when the
 * import reaches the end of the CSV.
 */
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

export interface ImportState {
  readonly version: 1;
  /** which import this is: the same file, unchanged, into the same campaign */
  readonly input: { readonly path: string; readonly size: number; readonly mtimeMs: number };
  readonly campaignId: string;
  /** data rows (after the header) fully acknowledged */
  readonly rows: number;
  /** the CSV line of the last of them, for people */
  readonly line: number;
  readonly created: number;
  readonly skipped: number;
  readonly rejected: number;
  /** length of the rejects file at that point; anything after it is from the unacknowledged chunk */
  readonly rejectsBytes: number;
}

export class StateMismatchError extends Error {}

export const statePathFor = (rejectsPath: string) => `${rejectsPath.replace(/\.csv$/i, '')}.state.json`;

export function inputIdentity(file: string): ImportState['input'] {
  const stat = statSync(file);
  return { path: resolve(file), size: stat.size, mtimeMs: Math.round(stat.mtimeMs) };
}

/** the state of an unfinished import of this file into this campaign, if any */
export function loadState(path: string, input: ImportState['input'], campaignId: string): ImportState | null {
  if (!existsSync(path)) return null;
  const state = JSON.parse(readFileSync(path, 'utf8')) as ImportState;
  const same =
    state.version === 1 &&
    state.campaignId === campaignId &&
    state.input.path === input.path &&
    state.input.size === input.size &&
    state.input.mtimeMs === input.mtimeMs;
  if (!same) {
    throw new StateMismatchError(
      `${path} records an unfinished import of another file, campaign or version of the file; ` +
        'run with --restart to start over (rows already sent are skipped as duplicates)',
    );
  }
  return state;
}

export function saveState(path: string, state: ImportState): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state)}\n`);
  renameSync(tmp, path);
}

export const clearState = (path: string) => rmSync(path, { force: true });

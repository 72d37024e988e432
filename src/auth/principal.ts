export type Scope = 'read' | 'write';

/** Who is calling: the key, its company, its scope and its campaign restriction. */
export interface Principal {
  readonly keyId: string;
  readonly companyId: string;
  /** null for a company-wide key */
  readonly campaignId: string | null;
  readonly scope: Scope;
}

/** write includes read */
export const allows = (have: Scope, need: Scope): boolean => have === 'write' || need === 'read';

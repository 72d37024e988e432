/**
 * Turns the first Ajv error of a request into the message the API promises
 * (docs/api.md's tables, else a clear one naming the field).
 */
export interface SchemaError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
}

const FIELD: Record<string, string> = {
  phoneNumber: 'phoneNumber must be in E.164 format: a plus sign and 2 to 15 digits, the first not 0 (e.g. +14155550123)',
  externalId: 'externalId must be a non-empty string of at most 255 characters, without NUL or unpaired surrogate characters',
  metadata: 'metadata must be a JSON object of at most 16 KiB, its numbers within ±1.8e308',
  scheduledFor: 'scheduledFor must be an ISO 8601 timestamp with a timezone (Z or ±hh:mm)',
  priority: 'priority must be an integer from 0 to 100',
  campaignId: 'campaignId must be a non-empty string, without NUL or unpaired surrogate characters',
  status: 'status must be one of raw, attempting, exhausted, concluded',
  limit: 'limit must be a whole number of at least 1',
  cursor: 'Invalid cursor',
  reason: 'reason must be a string of at most 500 characters, without NUL or unpaired surrogate characters',
};

const NEED_IDENTIFIER = 'At least one of phoneNumber or externalId is required';
const NEED_IDENTIFIER_QUERY = 'At least one of phoneNumber or externalId query parameter is required';

export function schemaErrorMessage(errors: readonly SchemaError[], where: 'body' | 'querystring' | string, maxBulkMessage: string): string {
  // A failed anyOf (neither identifier) reports its branches first; the anyOf itself is what we name.
  const err = errors.find((e) => e.keyword === 'anyOf') ?? errors[0];
  if (!err) return 'Invalid request';
  const path = err.instancePath.split('/').slice(1);
  const query = where === 'querystring';

  if (path.length === 0) {
    if (err.keyword === 'required') {
      const field = String(err.params.missingProperty);
      if (field === 'leads') return 'leads array is required';
      return query ? `${field} query parameter is required` : `${field} is required`;
    }
    if (err.keyword === 'anyOf') return query ? NEED_IDENTIFIER_QUERY : NEED_IDENTIFIER;
    return query ? 'Invalid query string' : 'Request body must be a JSON object';
  }

  const [top, index, field] = path;
  if (top === 'leads') {
    if (index === undefined) {
      if (err.keyword === 'minItems') return 'leads array cannot be empty';
      if (err.keyword === 'maxItems') return maxBulkMessage;
      return 'leads array is required';
    }
    return `leads[${index}]: ${entryMessage(err, field)}`;
  }
  if (top === 'phoneNumbers') {
    if (index !== undefined) return `phoneNumbers[${index}]: ${FIELD.phoneNumber}`;
    if (err.keyword === 'minItems') return 'phoneNumbers array cannot be empty';
    if (err.keyword === 'maxItems') return 'Maximum 1000 phone numbers per request';
    return 'phoneNumbers must be an array of E.164 phone numbers';
  }
  if (top === 'campaignId' && err.keyword === 'minLength') {
    return query ? 'campaignId query parameter is required' : 'campaignId is required';
  }
  if (query && err.keyword === 'type') return `${top} query parameter must be given once`;
  return FIELD[top!] ?? `${top} is invalid`;
}

function entryMessage(err: SchemaError, field: string | undefined): string {
  if (field === undefined) return err.keyword === 'anyOf' ? NEED_IDENTIFIER : 'each entry must be a JSON object';
  return FIELD[field] ?? `${field} is invalid`;
}

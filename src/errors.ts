/**
 * Domain errors carry a stable code and the exact message the API promises.
 * Exactly one place (src/http/errors.ts) turns a code into an HTTP status.
 */
export type ErrorCode =
  | 'validation' // 400
  | 'missing_key' // 401
  | 'invalid_key' // 401
  | 'invalid_signature' // 401: a platform's webhook whose signature does not verify
  | 'insufficient_permissions' // 403
  | 'forbidden' // 403
  | 'not_found' // 404
  | 'conflict' // 409
  | 'payload_too_large' // 413
  | 'unsupported_media_type' // 415
  | 'rate_limited' // 429
  | 'unavailable' // 503
  | 'internal'; // 500

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const MESSAGES = {
  missingKey: 'Missing API key',
  keyInAuthorization: 'Missing API key: send it in the x-api-key header (the Authorization header is not read)',
  invalidKey: 'Invalid or inactive API key',
  insufficientPermissions: 'Insufficient permissions',
  forbidden: 'Forbidden',
  campaignNotFound: 'Campaign not found or access denied',
  leadNotFound: 'Lead not found',
  rateLimited: 'Rate limit exceeded. Please try again later.',
  notFound: 'Not found',
  internal: 'Internal server error',
  invalidCursor: 'Invalid cursor',
  invalidJson: 'Request body is not valid JSON',
  noPredial: 'Campaign has no predial function configured; phoneNumber is required',
  unavailable: 'Service temporarily unavailable',
  invalidSignature: 'Invalid or missing webhook signature',
} as const;

export const validation = (message: string) => new AppError('validation', message);

import type { FastifyReply } from 'fastify';

/** every response body is { success, data, error } */
export function sendOk(reply: FastifyReply, status: number, data: unknown): FastifyReply {
  return reply.code(status).send({ success: true, data, error: null });
}

/** a success whose data is JSON text already (the list page, built by the database) */
export function sendOkRaw(reply: FastifyReply, dataJson: string): FastifyReply {
  return reply.code(200).type('application/json; charset=utf-8').send(`{"success":true,"data":${dataJson},"error":null}`);
}

export const failure = (error: string, extra: Record<string, unknown> = {}) => ({
  success: false,
  data: null,
  error,
  ...extra,
});

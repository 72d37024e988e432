/**
 * The five lead operations. Thin: schemas validate, the service decides,
 * the envelope answers. Registered twice, under /leads and /records.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { LeadService } from '../../leads/service.js';
import {
  bulkCreateBody,
  bulkDeleteBody,
  createBody,
  deleteQuery,
  type IdentifierEntry,
  type LeadInput,
  listQuery,
} from '../../leads/schemas.js';
import type { LeadStatus } from '../../leads/lifecycle.js';
import { sendOk, sendOkRaw } from '../envelope.js';
import { bulkCreateLeadsDoc, bulkDeleteLeadsDoc, createLeadDoc, deleteLeadDoc, listLeadsDoc } from '../openapi-schemas.js';

type CreateBody = LeadInput & { campaignId: string };
type BulkBody<T> = { campaignId: string; leads: T[] };
type ListQuery = { campaignId: string; status?: LeadStatus; limit?: string; cursor?: string };
type DeleteQuery = IdentifierEntry & { campaignId: string };

/**
 * A client that forgets to encode "+" as %2B sends " 1415…": the query parser
 * reads "+" as a space. The intent is unambiguous, so put the plus back.
 */
function restorePlus(request: FastifyRequest<{ Querystring: DeleteQuery }>, _reply: unknown, done: () => void) {
  const phone = request.query?.phoneNumber;
  if (typeof phone === 'string' && /^ [1-9][0-9]*$/.test(phone)) request.query.phoneNumber = `+${phone.slice(1)}`;
  done();
}

export function leadRoutes(service: LeadService) {
  return async (app: FastifyInstance) => {
    app.post<{ Body: CreateBody }>(
      '/',
      { schema: { ...createLeadDoc, body: createBody }, config: { scope: 'write' } },
      async (request, reply) => {
        const leadId = await service.create(request.principal, request.body);
        return sendOk(reply, 201, { leadId });
      },
    );

    app.get<{ Querystring: ListQuery }>(
      '/',
      { schema: { ...listLeadsDoc, querystring: listQuery }, config: { scope: 'read' } },
      async (request, reply) => {
        const page = await service.list(request.principal, request.query);
        return sendOkRaw(
          reply,
          `{"leads":${page.leadsJson},"count":${page.count},"cursor":${JSON.stringify(page.cursor)},"hasMore":${page.hasMore}}`,
        );
      },
    );

    app.delete<{ Querystring: DeleteQuery }>(
      '/',
      { schema: { ...deleteLeadDoc, querystring: deleteQuery }, config: { scope: 'write' }, preValidation: restorePlus },
      async (request, reply) => {
        await service.deleteOne(request.principal, request.query);
        return sendOk(reply, 200, { deleted: true });
      },
    );

    app.post<{ Body: BulkBody<LeadInput> }>(
      '/bulk',
      { schema: { ...bulkCreateLeadsDoc, body: bulkCreateBody }, config: { scope: 'write', bulk: true }, attachValidation: true },
      async (request, reply) => {
        if (request.validationError) {
          // The entries before the one the schema refused are valid; one of them may still be
          // invalid for this campaign (externalId only, no predial function), and the lowest
          // invalid index is the one to name.
          const at = /^\/leads\/(\d+)/.exec(request.validationError.validation?.[0]?.instancePath ?? '');
          if (at) await service.checkPrefetch(request.principal, request.body.campaignId, request.body.leads.slice(0, Number(at[1])));
          throw request.validationError;
        }
        const result = await service.bulkCreate(request.principal, request.body.campaignId, request.body.leads);
        return sendOk(reply, 200, result);
      },
    );

    app.post<{ Body: BulkBody<IdentifierEntry> }>(
      '/bulk-delete',
      { schema: { ...bulkDeleteLeadsDoc, body: bulkDeleteBody }, config: { scope: 'write', bulk: true } },
      async (request, reply) => {
        const result = await service.bulkDelete(request.principal, request.body.campaignId, request.body.leads);
        return sendOk(reply, 200, result);
      },
    );
  };
}

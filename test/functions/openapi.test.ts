/**
 * `GET /openapi.json`: the OpenAPI 3.1 document generated from the API's zod schemas, served by
 * the same app as the routes and checked against the OpenAPI 3.1 meta-schema by an independent
 * validator (`@seriousme/openapi-schema-validator`).
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiHandler } from '../../lib/lambda/index.ts';
import { loadEvent, startWorkflowHarness, type WorkflowHarness } from '../support/workflow.ts';

let h: WorkflowHarness;
let document: Record<string, unknown>;
let status: number | undefined;
beforeAll(async () => {
  h = await startWorkflowHarness();
  const event = await loadEvent('get-report.json');
  event.rawPath = '/openapi.json';
  event.requestContext.http.path = '/openapi.json';
  const result = await createApiHandler(h.apiContext({ publicBaseUrl: 'https://reports.example.com/v1' }))(
    event,
  );
  status = result.statusCode;
  document = JSON.parse(result.body ?? 'null') as Record<string, unknown>;
});
afterAll(async () => {
  await h.close();
});

describe('GET /openapi.json', () => {
  it('answers 200 with an OpenAPI 3.1 document', () => {
    expect(status).toBe(200);
    expect(document.openapi).toBe('3.1.0');
  });

  it('serves a document that the OpenAPI 3.1 meta-schema accepts', async () => {
    const validator = new Validator();

    const result = await validator.validate(structuredClone(document));

    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('documents the report routes and the adjustments routes with their methods', () => {
    const paths = document.paths as Record<string, Record<string, unknown>>;

    expect(Object.keys(paths).sort()).toEqual([
      '/closes',
      '/closes/reopen',
      '/profiles/{profile}/adjustments',
      '/profiles/{profile}/adjustments/{id}',
      '/rates',
      '/reports',
      '/reports/{jobId}',
      '/reports/{jobId}/archive',
      '/reports/{jobId}/rerun',
      '/reports/{jobId}/verification',
      '/reports/{jobId}/warnings',
    ]);
    expect(Object.keys(paths['/profiles/{profile}/adjustments'] ?? {}).sort()).toEqual(['get', 'post']);
    expect(Object.keys(paths['/profiles/{profile}/adjustments/{id}'] ?? {})).toEqual(['delete']);
    expect(Object.keys(paths['/reports/{jobId}/warnings'] ?? {})).toEqual(['get']);
    expect(Object.keys(paths['/reports/{jobId}/rerun'] ?? {})).toEqual(['post']);
    expect(Object.keys(paths['/rates'] ?? {})).toEqual(['get']);
    expect(Object.keys(paths['/reports'] ?? {}).sort()).toEqual(['get', 'post']);
    expect(Object.keys(paths['/reports/{jobId}'] ?? {})).toEqual(['get']);
    expect(Object.keys(paths['/reports/{jobId}/archive'] ?? {})).toEqual(['post']);
    expect(Object.keys(paths['/reports/{jobId}/verification'] ?? {})).toEqual(['get']);
  });

  it('documents "download all": jobId in the path, a link to the zip, 404 for a job not shown, 409 unfinished', () => {
    type Operation = { parameters?: { name: string; in: string }[]; responses: Record<string, unknown> };
    const paths = document.paths as Record<string, Record<string, Operation>>;
    const archive = paths['/reports/{jobId}/archive']?.post;

    expect(archive?.parameters).toEqual([expect.objectContaining({ name: 'jobId', in: 'path' })]);
    expect(Object.keys(archive?.responses ?? {}).sort()).toEqual(['200', '400', '404', '409', '500']);
    const ok = archive?.responses['200'] as { content: Record<string, { schema: unknown }> };
    expect(JSON.stringify(ok.content['application/json']?.schema)).toContain('Archive');
  });

  it('documents the export request body with its required fields, from the request schema', () => {
    type Body = { content: Record<string, { schema: { required?: string[]; properties?: object } }> };
    const paths = document.paths as Record<string, Record<string, { requestBody?: Body }>>;
    const schema = paths['/reports']?.post?.requestBody?.content['application/json']?.schema;

    expect(schema?.required).toEqual(expect.arrayContaining(['profile', 'period']));
    expect(Object.keys(schema?.properties ?? {})).toEqual(
      expect.arrayContaining(['profile', 'period', 'formats', 'filters']),
    );
  });

  it('documents jobId as a path parameter and profile as a required query parameter', () => {
    const paths = document.paths as Record<
      string,
      Record<string, { parameters?: { name: string; in: string; required?: boolean }[] }>
    >;
    const getJob = paths['/reports/{jobId}']?.get?.parameters ?? [];
    const list = paths['/reports']?.get?.parameters ?? [];

    expect(getJob).toContainEqual(expect.objectContaining({ name: 'jobId', in: 'path', required: true }));
    expect(list).toContainEqual(expect.objectContaining({ name: 'profile', in: 'query', required: true }));
    expect(list).toContainEqual(expect.objectContaining({ name: 'limit', in: 'query' }));
  });

  it('documents paging of the job list: a cursor query parameter and nextCursor in the answer', () => {
    type Get = {
      parameters?: { name: string; in: string; required?: boolean }[];
      responses: Record<string, { content: Record<string, { schema: { $ref?: string } }> }>;
    };
    const paths = document.paths as Record<string, Record<string, Get>>;
    const list = paths['/reports']?.get;
    const ref = list?.responses['200']?.content['application/json']?.schema.$ref ?? '';
    const schemas = (
      document.components as { schemas: Record<string, { properties?: object; required?: string[] }> }
    ).schemas;
    const answer = schemas[ref.split('/').pop() ?? ''];

    expect(list?.parameters).toContainEqual(
      expect.objectContaining({ name: 'cursor', in: 'query', required: false }),
    );
    expect(Object.keys(answer?.properties ?? {})).toContain('nextCursor');
    expect(answer?.required ?? []).not.toContain('nextCursor');
  });

  it('names the configured public URL as the server, never a request header', () => {
    expect(document.servers).toEqual([{ url: 'https://reports.example.com/v1' }]);
  });
});

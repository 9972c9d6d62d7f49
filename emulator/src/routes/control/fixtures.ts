import { Hono } from 'hono';
import type { Services } from '../../deps.ts';
import { ApiError } from '../../errors.ts';
import { FixtureError, loadFixture } from '../../fixtures/load-fixture.ts';
import { readJsonObject } from '../../http/json-body.ts';
import { packagePath } from '../../package-root.ts';

/** Fixtures posted over HTTP may name `.eml` files of the repository's fixtures folder only. */
const FIXTURES_DIR = packagePath('fixtures/');

/** `POST /fixtures`: loads a fixture (fixtures/fixture.schema.json) all or nothing. */
export function controlFixtureRoutes(services: Services): Hono {
  return new Hono().post('/', async (c) => {
    const fixture = await readJsonObject(c);
    try {
      return c.json(await loadFixture(services, fixture, { baseDir: FIXTURES_DIR }), 201);
    } catch (error) {
      if (!(error instanceof FixtureError)) throw error;
      // The message starts with the JSON path of the culprit, e.g. `$.grants[2].owner: ...`.
      const path = /^\$\.?([^:\s]*)/.exec(error.message)?.[1];
      throw new ApiError(
        'invalid_field',
        error.message,
        path === undefined || path === '' ? undefined : path,
      );
    }
  });
}

/**
 * The workflow id the traversal walks under is taken out of the context's strings, so that a path
 * replayed under any other id (the engine's) ends in the state the traversal saw. A text of the
 * workflow's own that happens to hold that id (a sampled URL, a description) must not be taken out
 * with it.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { event, setup, workflow } from '../../../src/authoring/index.ts';
import { generatePaths } from '../../../src/paths/generate.ts';
import { behaviouralState, type Walkable } from '../../../src/paths/walk.ts';
import { replayPure } from '../../../src/testing/path-suite.ts';

const kit = setup({
  input: z.strictObject({ note: z.string().min(1).max(200) }),
  context: ({ note }) => ({ note, link: null as string | null }),
  events: { LINKED: event({ link: z.url() }, { roles: ['clerk'] }) },
  updates: { recordLink: ({ event }) => ({ link: event.payload.link }) },
});

const linked = workflow({
  machine: kit.createMachine({
    id: 'linked',
    initial: 'created',
    states: {
      created: { on: { START: 'waiting' } },
      waiting: { on: { LINKED: { target: 'done', actions: 'recordLink' } } },
      done: { type: 'final' },
    },
  }),
  title: 'Linked',
  description: 'A clerk links a document.',
  create: ['clerk'],
  view: { schema: z.object({ link: z.string().nullable() }), render: (c) => ({ link: c.link }) },
  // Texts that name a path: the sampled URL of LINKED, and this note.
  paths: { bodies: [{ note: 'the path to the archive' }] },
  demo: { input: () => ({ note: 'n' }) },
});

describe('the traversal’s workflow id', () => {
  it('is taken out of no text of the workflow’s own: paths replayed under another id end where the traversal said', () => {
    const walkable: Walkable = {
      definition: linked.latest,
      paths: linked.paths,
    };
    const { paths } = generatePaths(walkable, { simple: false });
    const ends = paths.map((path) =>
      behaviouralState(walkable, replayPure(walkable, path, 's001-abcdefghijklmnop').walk),
    );
    expect(ends).toEqual(paths.map((path) => path.target));
  });
});

// Written against the surviving mutants of backup/restore.ts
// (settlePendingRestores and its rollback): a restore "killed" in-process.
// At a crash point the home, the staging and the journal are copied with
// hard links (cp -al keeps every inode, so a staged copy and the file linked
// from it stay one inode, as after a real kill); the restore then runs to its
// end and the copies are put back in place of what it left. restore-crash
// kills a real process at every point; this is the fast in-process twin.

import { generateX25519Identity, identityToRecipient } from 'age-encryption';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import '../../src/adapters/registry.js';
import { collectEntries, writeArchive } from '../../src/backup/archive.js';
import { restoreArchive, settlePendingRestores, type RestoreOptions } from '../../src/backup/restore.js';
import { partialName, restoreJournalPath, stagingDirName } from '../../src/backup/restore-journal.js';
import { atCrashPoints } from '../../src/engine/core/faults.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';

// In manifest order (a sorted walk): 0 s/c.jsonl, 1 s/n/a.jsonl, 2 s/n/m/b.jsonl.
const FILES: Record<string, string> = { 's/c.jsonl': 'cc', 's/n/a.jsonl': 'aaa', 's/n/m/b.jsonl': 'bbbb' };
const DESTS = Object.keys(FILES);

let t: TempEnv;
let identity: string;
let recipient: string;
let home: string;
let archive: string;
let journal: Record<string, unknown>;
beforeAll(async () => {
  identity = await generateX25519Identity();
  recipient = await identityToRecipient(identity);
});
beforeEach(async () => {
  t = makeTempEnv('cleanerx-mres-settle-');
  home = join(t.root, 'dest');
  mkdirSync(home);
  const src = join(t.root, 'src');
  for (const [rel, body] of Object.entries(FILES)) {
    mkdirSync(dirname(join(src, rel)), { recursive: true });
    writeFileSync(join(src, rel), body, { mode: 0o600 });
  }
  mkdirSync(join(src, 's/e/locked'), { recursive: true });
  chmodSync(join(src, 's/e'), 0o555);
  const c = await collectEntries([join(src, 's')], [{ label: 'pi_home', dir: src }]);
  chmodSync(join(src, 's/e'), 0o700);
  archive = join(t.root, 'a.cxb');
  await writeArchive({
    archivePath: archive,
    recipient,
    agent: 'pi',
    operationId: 'op',
    id: 'a1a1a1a1-0000-4000-8000-00000000cafe',
    itemCount: 1,
    retentionDays: 1,
    files: c.files,
    emptyDirs: c.emptyDirs,
    dirs: c.dirs,
  });
});
afterEach(() => {
  atCrashPoints(null);
  delete process.env.CLEANERX_FAIL_AT;
  execFileSync('chmod', ['-R', 'u+rwx', t.root]);
  t.cleanup();
});

const staging = (): string => join(t.root, 'staging');
const journals = (): string => join(t.root, 'journals');
const roots = (): Record<string, string> => ({ pi_home: home });
const opts = (): RestoreOptions => ({
  archivePath: archive,
  identity,
  agent: 'pi',
  roots: roots(),
  uid: process.getuid!(),
  stagingParent: staging(),
  journalDir: journals(),
});
const h = (rel: string): string => join(home, rel);
const listed = (d: string): string[] => (existsSync(d) ? readdirSync(d).sort() : []);
const settle = (o: Partial<Parameters<typeof settlePendingRestores>[0]> = {}) =>
  settlePendingRestores({ journalDir: journals(), stagingParent: staging(), rootsFor: async () => roots(), ...o });
const restoreId = (): string => journal.restoreId as string;
const stagingDir = (): string => join(staging(), stagingDirName(restoreId()));
/** The staged copy of file `i` (in manifest order). */
const stagedOf = (i: number): string => join(stagingDir(), String(i));

/** Leaves home, staging and journal as a kill at `point` would have (see the top). */
async function killedAt(point: string): Promise<void> {
  const snap = join(t.root, 'snap');
  let taken = false;
  atCrashPoints((p) => {
    if (p !== point || taken) return;
    taken = true;
    mkdirSync(snap);
    for (const d of [home, staging(), journals()]) execFileSync('cp', ['-al', d, join(snap, d.slice(t.root.length + 1))]);
  });
  await restoreArchive(opts()).catch(() => undefined);
  atCrashPoints(null);
  expect(taken).toBe(true);
  for (const d of [home, staging(), journals()]) {
    if (existsSync(d)) execFileSync('chmod', ['-R', 'u+rwx', d]);
    rmSync(d, { recursive: true, force: true });
    renameSync(join(snap, d.slice(t.root.length + 1)), d);
  }
  rmSync(snap, { recursive: true });
  const names = readdirSync(journals()).filter((f) => f.endsWith('.json'));
  expect(names).toHaveLength(1);
  journal = JSON.parse(readFileSync(join(journals(), names[0]!), 'utf8')) as Record<string, unknown>;
}

function expectSettled(): void {
  expect(listed(staging())).toEqual([]);
  expect(listed(journals())).toEqual([]);
}

const full = (): void => {
  for (const [rel, body] of Object.entries(FILES)) expect(readFileSync(h(rel), 'utf8')).toBe(body);
  expect(lstatSync(h('s/e')).mode & 0o777).toBe(0o555);
};

describe('settlePendingRestores: by status', () => {
  it('staging: discarded, nothing written, its staging removed', async () => {
    await killedAt('restore:staged');
    const out = await settle();
    expect(out).toEqual([
      {
        restoreId: restoreId(),
        agent: 'pi',
        backupId: null,
        outcome: 'discarded',
        restored: [],
        message: 'An interrupted restore had not written anything to the agent yet; its staging was removed.',
      },
    ]);
    expect(listed(home)).toEqual([]);
    expectSettled();
  });

  it('committed: completed, every destination named', async () => {
    await killedAt('restore:committed');
    const out = await settle();
    expect(out).toEqual([
      {
        restoreId: restoreId(),
        agent: 'pi',
        backupId: null,
        outcome: 'completed',
        restored: DESTS.map(h),
        message: 'An interrupted restore had put back all 3 files; its staging was removed.',
      },
    ]);
    full();
    expectSettled();
  });

  it('committing, resumed: the rest goes into place, a stray partial beside a destination is removed', async () => {
    await killedAt('restore:1:before');
    writeFileSync(join(h('s/n'), partialName(restoreId(), 1)), 'half');
    const out = await settle();
    expect(out.map((o) => [o.outcome, o.message, o.restored])).toEqual([
      ['completed', `The interrupted restore ${restoreId()} was finished: all 3 files are in place.`, DESTS.map(h)],
    ]);
    full();
    expect(listed(h('s/n'))).toEqual(['a.jsonl', 'm']);
    expectSettled();
  });

  it('committing, a destination put back as a copy (another inode, the same bytes): resumed all the same', async () => {
    await killedAt('restore:1:after');
    const p = h('s/n/a.jsonl');
    rmSync(p);
    writeFileSync(p, FILES['s/n/a.jsonl']!);
    expect((await settle()).map((o) => o.outcome)).toEqual(['completed']);
    full();
  });

  it('committing, rolled back on request: the home is as before, the dirs it made are gone', async () => {
    await killedAt('restore:1:after');
    const out = await settle({ mode: 'rollback' });
    expect(out.map((o) => [o.outcome, o.message])).toEqual([
      ['rolledBack', `The interrupted restore ${restoreId()} was rolled back: nothing it had put back is left; the backup can be restored again.`],
    ]);
    expect(listed(home)).toEqual([]);
    expectSettled();
    // And the backup restores again.
    expect((await restoreArchive(opts())).restored).toEqual(DESTS.map(h));
  });

  it('committing, a destination that now holds other data: rolled back, that data kept, the reason given', async () => {
    await killedAt('restore:1:after');
    rmSync(h('s/n/a.jsonl'));
    writeFileSync(h('s/n/a.jsonl'), 'theirs');
    const out = await settle();
    expect(out.map((o) => [o.outcome, o.message])).toEqual([
      [
        'rolledBack',
        `The interrupted restore ${restoreId()} was rolled back (${h('s/n/a.jsonl')} now holds other data): nothing it had put back is left; the backup can be restored again.`,
      ],
    ]);
    expect([...hashTree(home).keys()].filter((k) => k.endsWith('.jsonl'))).toEqual(['s/n/a.jsonl']);
    expect(readFileSync(h('s/n/a.jsonl'), 'utf8')).toBe('theirs');
    expectSettled();
  });

  it('committing, a staged copy not yet put back is damaged: rolled back, the reason given', async () => {
    await killedAt('restore:0:after');
    writeFileSync(stagedOf(2), 'XX');
    const out = await settle();
    expect(out.map((o) => o.outcome)).toEqual(['rolledBack']);
    expect(out[0]!.message).toContain(`(the staged copy of ${h('s/n/m/b.jsonl')} is missing or damaged)`);
    expect(listed(home)).toEqual([]);
  });

  it('committing, a staged copy not yet put back is missing or not a file: rolled back', async () => {
    await killedAt('restore:0:after');
    rmSync(stagedOf(2));
    mkdirSync(stagedOf(2));
    const out = await settle();
    expect(out[0]!.message).toContain(`(the staged copy of ${h('s/n/m/b.jsonl')} is missing or damaged)`);
    expect(listed(home)).toEqual([]);
  });

  it('committing, its staging gone: rolled back; the byte-identical files stay and are named', async () => {
    await killedAt('restore:1:after');
    rmSync(stagingDir(), { recursive: true });
    const out = await settle();
    expect(out.map((o) => [o.outcome, o.message])).toEqual([
      [
        'rolledBack',
        `The interrupted restore ${restoreId()} was rolled back: 2 file(s) byte-identical to the backup stay in place (its staging was gone, so they cannot be told from yours), e.g. ${h('s/n/a.jsonl')}; a restore again counts them as restored.`,
      ],
    ]);
    expect([...hashTree(home).keys()].filter((k) => k.endsWith('.jsonl')).sort()).toEqual(['s/c.jsonl', 's/n/a.jsonl']);
    expect(listed(h('s/n'))).toEqual(['a.jsonl']);
    expectSettled();
  });

  it('committing, its staging gone and a destination changed since: the changed one is not counted as the backup’s', async () => {
    await killedAt('restore:1:after');
    rmSync(stagingDir(), { recursive: true });
    rmSync(h('s/n/a.jsonl'));
    writeFileSync(h('s/n/a.jsonl'), 'mine');
    const out = await settle();
    expect(out[0]!.message).toContain(`1 file(s) byte-identical to the backup stay in place`);
    expect(readFileSync(h('s/n/a.jsonl'), 'utf8')).toBe('mine');
  });

  it('rollingBack (killed while undoing a failure): rolled back even in resume mode', async () => {
    process.env.CLEANERX_FAIL_AT = 'restore:2:after';
    await killedAt('restore:rollingBack');
    delete process.env.CLEANERX_FAIL_AT;
    expect(journal.status).toBe('rollingBack');
    const out = await settle();
    expect(out.map((o) => o.outcome)).toEqual(['rolledBack']);
    expect(listed(home)).toEqual([]);
    expectSettled();
  });

  it('a rollback after the empty dirs got their modes opens a locked dir up; one someone filled stays, opened', async () => {
    await killedAt('restore:emptyDirs');
    expect(lstatSync(h('s/e')).mode & 0o777).toBe(0o555);
    writeFileSync(h('s/e/theirs'), 'x');
    const out = await settle({ mode: 'rollback' });
    expect(out.map((o) => o.outcome)).toEqual(['rolledBack']);
    expect(listed(home)).toEqual(['s']);
    expect(listed(h('s'))).toEqual(['e']);
    expect(listed(h('s/e'))).toEqual(['theirs']);
    expect(lstatSync(h('s/e')).mode & 0o777).toBe(0o700);
  });

  it('a rollback that cannot reach a dir (replaced by a link) is left pending with what is left, and says so', async () => {
    await killedAt('restore:1:after');
    const elsewhere = join(t.root, 'elsewhere');
    renameSync(h('s/n'), elsewhere);
    symlinkSync(elsewhere, h('s/n'));
    const out = await settle({ mode: 'rollback' });
    expect(out.map((o) => [o.outcome, o.message])).toEqual([
      [
        'pending',
        `The interrupted restore ${restoreId()} is being rolled back, but 2 item(s) could not be removed yet (first: ${h('s/n/m/b.jsonl')}); cleanerx retries at the next start.`,
      ],
    ]);
    expect(out[0]!.restored).toEqual([]);
    expect(existsSync(restoreJournalPath(journals(), restoreId()))).toBe(true);
    expect(existsSync(stagingDir())).toBe(true);
    expect(readFileSync(join(elsewhere, 'a.jsonl'), 'utf8')).toBe('aaa');
  });
});

describe('settlePendingRestores: what it leaves for later', () => {
  it('an agent whose data may not be written now: pending, with the reason, journal and staging kept', async () => {
    await killedAt('restore:1:after');
    const before = hashTree(t.root);
    const out = await settle({ rootsFor: async () => 'pi is running.' });
    expect(out).toEqual([{ restoreId: restoreId(), agent: 'pi', backupId: null, outcome: 'pending', restored: [], message: 'pi is running.' }]);
    expect(treeDiff(before, hashTree(t.root))).toEqual([]);
  });

  it('a root that moved: pending; a root the journal wrote nothing into may move', async () => {
    await killedAt('restore:1:after');
    const out = await settle({ rootsFor: async () => ({ pi_home: join(t.root, 'moved') }) });
    expect(out.map((o) => [o.outcome, o.message])).toEqual([
      [
        'pending',
        `The interrupted restore ${restoreId()} wrote into ${home}, which is no longer a root of this agent; restore that home setting to finish it.`,
      ],
    ]);
    const p = restoreJournalPath(journals(), restoreId());
    writeFileSync(p, JSON.stringify({ ...journal, roots: { ...(journal.roots as object), pi_root1: '/nowhere' } }));
    expect((await settle({ rootsFor: async () => ({ pi_home: home }) })).map((o) => o.outcome)).toEqual(['completed']);
  });

  it('a settle that fails for one restore says so (pending) and does not throw', async () => {
    await killedAt('restore:1:after');
    const out = await settle({
      rootsFor: async () => {
        throw new Error('no config');
      },
    });
    expect(out).toEqual([
      {
        restoreId: restoreId(),
        agent: 'pi',
        backupId: null,
        outcome: 'pending',
        restored: [],
        message: `The interrupted restore ${restoreId()} could not be settled yet: no config`,
      },
    ]);
  });

  it('another agent’s restores are left alone when one agent is asked for', async () => {
    await killedAt('restore:1:after');
    expect(await settle({ agent: 'claude' })).toEqual([]);
    expect(existsSync(restoreJournalPath(journals(), restoreId()))).toBe(true);
    expect((await settle({ agent: 'pi' })).map((o) => o.outcome)).toEqual(['completed']);
  });

  it('a journal naming a staging dir outside cleanerx’s own is unknown and left alone', async () => {
    await killedAt('restore:1:after');
    const p = restoreJournalPath(journals(), restoreId());
    writeFileSync(p, JSON.stringify({ ...journal, staging: join(t.root, 'other', stagingDirName(restoreId())) }));
    const before = hashTree(t.root);
    const out = await settle();
    expect(out).toEqual([
      {
        restoreId: restoreId(),
        agent: 'pi',
        backupId: null,
        outcome: 'unknown',
        restored: [],
        message: `The restore journal ${restoreId()} names a staging dir outside cleanerx's own; it is left alone.`,
      },
    ]);
    expect(treeDiff(before, hashTree(t.root))).toEqual([]);
  });
});

describe('settlePendingRestores: staging no journal names', () => {
  const ORPHAN = 'restore-0123abcd-0000-4000-8000-00000000beef';

  it('is removed; other names, files and staging with a journal stay', async () => {
    await killedAt('restore:1:after');
    mkdirSync(join(staging(), ORPHAN));
    writeFileSync(join(staging(), ORPHAN, '0'), 'decrypted');
    mkdirSync(join(staging(), 'restore-notauuid'));
    writeFileSync(join(staging(), 'restore-0123abcd-0000-4000-8000-00000000aaaa'), 'a file');
    mkdirSync(join(staging(), 'xrestore-0123abcd-0000-4000-8000-00000000bbbb'));
    mkdirSync(join(staging(), 'restore-0123abcd-0000-4000-8000-00000000bbbbx'));
    // Left pending, so its staging is still wanted.
    await settle({ rootsFor: async () => 'pi is running.' });
    expect(listed(staging())).toEqual(
      [
        'restore-0123abcd-0000-4000-8000-00000000aaaa',
        'restore-0123abcd-0000-4000-8000-00000000bbbbx',
        'restore-notauuid',
        stagingDirName(restoreId()),
        'xrestore-0123abcd-0000-4000-8000-00000000bbbb',
      ].sort(),
    );
  });

  it('is kept while a journal cleanerx cannot read is there, which is reported and left alone', async () => {
    mkdirSync(journals());
    mkdirSync(join(staging(), ORPHAN), { recursive: true });
    // Another restore's journal: the orphan has none of its own, yet stays while an unreadable journal might be its.
    const bad = join(journals(), 'restore-0123abcd-0000-4000-8000-00000000cccc.json');
    writeFileSync(bad, '{');
    const out = await settle();
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ restoreId: bad, agent: null, backupId: null, outcome: 'unknown', restored: [] });
    expect(out[0]!.message).toMatch(/^The restore journal cannot be read \(.*\)\. Inspect .* and move it away; cleanerx leaves it alone\.$/);
    expect(out[0]!.message).toContain(`Inspect ${bad} and move it away`);
    expect(listed(staging())).toEqual([ORPHAN]);
    expect(readFileSync(bad, 'utf8')).toBe('{');
  });

  it('no staging parent and no journal dir: nothing to settle', async () => {
    expect(await settle()).toEqual([]);
  });
});

describe('settlePendingRestores: what it records, leaves open and tells apart', () => {
  const journalStatus = (): string => (JSON.parse(readFileSync(restoreJournalPath(journals(), restoreId()), 'utf8')) as { status: string }).status;
  /** The journal's status at each of the settle's own crash points. */
  const statusAt = (): Record<string, string> => {
    const seen: Record<string, string> = {};
    atCrashPoints((p) => {
      if (p === 'restore:resumed' || p === 'restore:rollingBack') seen[p] = journalStatus();
    });
    return seen;
  };

  it('a resume records the restore as committed before it removes the journal (a kill then finds it done)', async () => {
    await killedAt('restore:1:after');
    const seen = statusAt();
    expect((await settle()).map((o) => o.outcome)).toEqual(['completed']);
    expect(seen).toEqual({ 'restore:resumed': 'committed' });
  });

  it('a rollback records the restore as rolling back before it removes anything (a kill then goes on rolling back)', async () => {
    await killedAt('restore:1:after');
    const seen = statusAt();
    const out = await settle({ mode: 'rollback' });
    expect(out.map((o) => [o.outcome, o.restored])).toEqual([['rolledBack', []]]);
    expect(seen).toEqual({ 'restore:rollingBack': 'rollingBack' });
  });

  it('leaves no descriptor open, resumed, rolled back or left pending', async () => {
    const fds = (): number => readdirSync('/proc/self/fd').length;
    await killedAt('restore:0:after');
    let before = fds();
    expect((await settle()).map((o) => o.outcome)).toEqual(['completed']);
    expect(fds()).toBe(before);
    rmSync(home, { recursive: true });
    mkdirSync(home);
    await killedAt('restore:1:after');
    const elsewhere = join(t.root, 'elsewhere');
    renameSync(h('s/n'), elsewhere);
    symlinkSync(elsewhere, h('s/n'));
    before = fds();
    expect((await settle({ mode: 'rollback' })).map((o) => o.outcome)).toEqual(['pending']);
    expect(fds()).toBe(before);
  });

  it('a staged copy damaged without changing its size is told from the backup: rolled back', async () => {
    await killedAt('restore:0:after');
    writeFileSync(stagedOf(2), 'XXXX');
    const out = await settle();
    expect(out.map((o) => o.outcome)).toEqual(['rolledBack']);
    expect(out[0]!.message).toContain(`(the staged copy of ${h('s/n/m/b.jsonl')} is missing or damaged)`);
    expect(listed(home)).toEqual([]);
  });

  it('a staged copy not yet put back replaced by a link is never followed: rolled back', async () => {
    await killedAt('restore:0:after');
    const bait = join(t.root, 'bait');
    writeFileSync(bait, FILES['s/n/m/b.jsonl']!);
    rmSync(stagedOf(2));
    symlinkSync(bait, stagedOf(2));
    const out = await settle();
    expect(out.map((o) => o.outcome)).toEqual(['rolledBack']);
    expect(out[0]!.message).toContain(`(the staged copy of ${h('s/n/m/b.jsonl')} is missing or damaged)`);
    expect(listed(home)).toEqual([]);
  });

  it('a rollback removes a stray partial beside a destination, and with it the dirs it made', async () => {
    await killedAt('restore:1:before');
    writeFileSync(join(h('s/n'), partialName(restoreId(), 1)), 'half');
    const out = await settle({ mode: 'rollback' });
    expect(out.map((o) => o.outcome)).toEqual(['rolledBack']);
    expect(listed(home)).toEqual([]);
  });

  it('a rollback leaves the mode of a dir someone filled as the restore gave it, unless it locked its owner out', async () => {
    await killedAt('restore:emptyDirs');
    const mode = lstatSync(h('s/n')).mode & 0o777;
    expect(mode).not.toBe(0o700);
    writeFileSync(h('s/n/theirs'), 'x');
    expect((await settle({ mode: 'rollback' })).map((o) => o.outcome)).toEqual(['rolledBack']);
    expect(listed(h('s/n'))).toEqual(['theirs']);
    expect(lstatSync(h('s/n')).mode & 0o777).toBe(mode);
  });

  it('a resume whose commit fails is rolled back, and the failure is the reason given', async () => {
    await killedAt('restore:0:after');
    process.env.CLEANERX_FAIL_AT = 'restore:1:before';
    const out = await settle();
    expect(out.map((o) => [o.outcome, o.message])).toEqual([
      [
        'rolledBack',
        `The interrupted restore ${restoreId()} was rolled back (injected failure at restore:1:before): nothing it had put back is left; the backup can be restored again.`,
      ],
    ]);
    expect(listed(home)).toEqual([]);
  });

  it('a file that was there before the restore is not the restore’s: edited since, it neither stops a resume nor is removed by a rollback', async () => {
    mkdirSync(h('s'));
    writeFileSync(h('s/c.jsonl'), FILES['s/c.jsonl']!);
    await killedAt('restore:1:after');
    writeFileSync(h('s/c.jsonl'), 'mine');
    expect((await settle()).map((o) => [o.outcome, o.message])).toEqual([
      ['completed', `The interrupted restore ${restoreId()} was finished: all 3 files are in place.`],
    ]);
    expect(readFileSync(h('s/c.jsonl'), 'utf8')).toBe('mine');
    rmSync(home, { recursive: true });
    mkdirSync(h('s'), { recursive: true });
    writeFileSync(h('s/c.jsonl'), FILES['s/c.jsonl']!);
    await killedAt('restore:1:after');
    rmSync(stagingDir(), { recursive: true });
    const out = await settle({ mode: 'rollback' });
    expect(out.map((o) => o.message)).toEqual([
      `The interrupted restore ${restoreId()} was rolled back: 1 file(s) byte-identical to the backup stay in place (its staging was gone, so they cannot be told from yours), e.g. ${h('s/n/a.jsonl')}; a restore again counts them as restored.`,
    ]);
    expect(readFileSync(h('s/c.jsonl'), 'utf8')).toBe('cc');
  });

  it('a resume counts a put-back file whose staged copy is gone as in place, by its bytes', async () => {
    await killedAt('restore:1:after');
    rmSync(stagedOf(0));
    expect((await settle()).map((o) => o.outcome)).toEqual(['completed']);
    full();
    expectSettled();
  });

  it('a root that moved leaves the restore pending with nothing counted as restored', async () => {
    await killedAt('restore:1:after');
    const out = await settle({ rootsFor: async () => ({ pi_home: join(t.root, 'moved') }) });
    expect(out.map((o) => [o.outcome, o.restored])).toEqual([['pending', []]]);
  });

  it('staging no journal names is removed when there is no journal at all', async () => {
    const orphan = join(staging(), 'restore-0123abcd-0000-4000-8000-00000000beef');
    mkdirSync(orphan, { recursive: true });
    writeFileSync(join(orphan, '0'), 'decrypted');
    expect(await settle()).toEqual([]);
    expect(listed(staging())).toEqual([]);
  });
});

// Every finding code of DESIGN.md's table, each from a real tree built on disk.
import t from 'tap';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { takeSnapshot, fsPayloadReader } from '../../../lib/store/snapshot.js';
import { verifyStore } from '../../../lib/integrity/verify.js';
import type { ConfigJudge } from '../../../lib/integrity/judge.js';
import { GOOD_PAYLOAD, metaYaml, writeTree } from '../../helpers.js';

const U = 'aaaaaaaa-0000-4000-8000-00000000000a';
const V = 'bbbbbbbb-0000-4000-8000-00000000000b';

/** A stand-in for the kubelet pipeline, keyed on markers in the payload text. */
const judge: ConfigJudge = (bytes) => {
  const s = bytes.toString();
  if (!s.includes('kind:')) return { stage: 'load-error', error: "failed to decode: Object 'Kind' is missing in '...'" };
  if (s.includes('INVALID')) return { stage: 'validate-error', error: 'invalid configuration: port (--port) 0 must be between 1 and 65535, inclusive', failures: [{ field: 'port', message: 'invalid configuration: port (--port) 0 must be between 1 and 65535, inclusive' }] };
  return {
    stage: 'ok',
    error: null,
    strict: s.includes('STRICT') ? [{ path: 'notAField', message: 'unknown field "notAField"' }] : [],
    relativePaths: s.includes('RELATIVE') ? [{ field: 'staticPodPath', value: 'manifests' }] : [],
    overrides: s.includes('OVERRIDE') ? [{ flag: 'max-pods', path: 'maxPods', value: 50, payloadValue: 110 }] : [],
  };
};

const good = (extra = '') => GOOD_PAYLOAD + extra;
const base = (files: Record<string, string | Buffer | null>) => ({
  'store/meta/assigned': metaYaml({ uid: U, rv: '1' }),
  'store/meta/last-known-good': metaYaml({ uid: U, rv: '1' }),
  [`store/checkpoints/${U}/1/kubelet`]: good(),
  ...files,
});

function verify(t: Tap.Test, files: Record<string, string | Buffer | null>, setup?: (dir: string) => void) {
  const dir = t.testdir();
  writeTree(dir, files);
  setup?.(dir);
  const snap = takeSnapshot(dir);
  return verifyStore(snap, { reader: fsPayloadReader(snap), judge, local: { path: null, judgement: null } });
}

const codes = (r: { findings: { code: string }[] }) => [...new Set(r.findings.map((f) => f.code))].sort();

t.test('a healthy store has no findings', async (t) => {
  const r = verify(t, base({}));
  t.same({ ok: r.ok, findings: r.findings }, { ok: true, findings: [] });
});

const table: [string, Record<string, string | Buffer | null>, string[], ((dir: string) => void)?][] = [
  ['META_NOT_REGULAR (directory)', base({ 'store/meta/last-known-good': null }), ['META_NOT_REGULAR', 'NEXT_BOOT_FAILS']],
  ['META_DECODE', base({ 'store/meta/assigned': 'garbage: [' }), ['META_DECODE', 'NEXT_BOOT_FAILS']],
  ['META_INCOMPLETE', base({ 'store/meta/last-known-good': metaYaml({ uid: U, rv: '1', name: '""' }) }), ['META_INCOMPLETE']],
  ['UNSAFE_REF', base({ 'store/meta/assigned': metaYaml({ uid: '..', rv: '1' }) }), ['UNSAFE_REF']],
  ['CHECKPOINT_MISSING', base({ 'store/meta/assigned': metaYaml({ uid: U, rv: '2' }) }), ['CHECKPOINT_MISSING']],
  ['PAYLOAD_KEY_MISSING', base({ 'store/meta/assigned': metaYaml({ uid: V, rv: '3' }), [`store/checkpoints/${V}/3/other`]: good() }), ['PAYLOAD_KEY_MISSING']],
  ['PAYLOAD_DECODE', base({ 'store/meta/assigned': metaYaml({ uid: V, rv: '3' }), [`store/checkpoints/${V}/3/kubelet`]: 'apiVersion: v1\n' }), ['PAYLOAD_DECODE']],
  ['PAYLOAD_INVALID', base({ 'store/meta/assigned': metaYaml({ uid: V, rv: '3' }), [`store/checkpoints/${V}/3/kubelet`]: good('# INVALID\n') }), ['PAYLOAD_INVALID']],
  ['PAYLOAD_STRICT', base({ [`store/checkpoints/${U}/1/kubelet`]: good('# STRICT\n') }), ['PAYLOAD_STRICT']],
  ['PAYLOAD_RELATIVE_PATH', base({ [`store/checkpoints/${U}/1/kubelet`]: good('# RELATIVE\n') }), ['PAYLOAD_RELATIVE_PATH']],
  ['FLAG_OVERRIDE', base({ [`store/checkpoints/${U}/1/kubelet`]: good('# OVERRIDE\n') }), ['FLAG_OVERRIDE']],
  ['CHECKPOINT_ENTRY (subdirectory)', base({ [`store/checkpoints/${U}/1/sub/x`]: 'x' }), ['CHECKPOINT_ENTRY']],
  ['CHECKPOINT_ENTRY (bad key name)', base({ [`store/checkpoints/${U}/1/has space`]: 'x' }), ['CHECKPOINT_ENTRY']],
  ['CHECKPOINT_ENTRY (file in checkpoints/)', base({ 'store/checkpoints/stray': 'x' }), ['CHECKPOINT_ENTRY']],
  ['TMP_LEFTOVER', base({ 'store/meta/tmp_assigned0123': 'x', [`store/checkpoints/${U}/tmp_1987654`]: null }), ['TMP_LEFTOVER']],
  ['LKG_UNUSABLE', base({ 'store/meta/last-known-good': metaYaml({ uid: V, rv: '3' }), [`store/checkpoints/${V}/3/kubelet`]: 'nokind\n' }), ['LKG_UNUSABLE', 'PAYLOAD_DECODE']],
  ['PAYLOAD_TOO_LARGE', base({ [`store/checkpoints/${U}/1/big`]: Buffer.alloc(1024 * 1024 + 1, 0x61) }), ['PAYLOAD_TOO_LARGE']],
  ['PAYLOAD_NOT_UTF8', base({ [`store/checkpoints/${U}/1/bin`]: Buffer.from([0xff, 0xfe, 0x00]) }), ['PAYLOAD_NOT_UTF8']],
  ['NEXT_BOOT_FAILS', base({ 'store/meta/assigned': metaYaml({ uid: V, rv: '3' }), 'store/meta/last-known-good': metaYaml({ uid: V, rv: '4' }), [`store/checkpoints/${V}/3/kubelet`]: 'x\n', [`store/checkpoints/${V}/4/kubelet`]: 'y\n' }), ['LKG_UNUSABLE', 'NEXT_BOOT_FAILS', 'PAYLOAD_DECODE']],
  ['HASH_MISMATCH', base({ 'store/meta/assigned': metaYaml({ uid: V, rv: '3', name: 'node-config-9mbkccg2cc' }), [`store/checkpoints/${V}/3/kubelet`]: good() }), ['HASH_MISMATCH']],
  ['PERMISSIONS', base({}), ['PERMISSIONS'], (dir) => fs.chmodSync(path.join(dir, `store/checkpoints/${U}/1/kubelet`), 0o666)],
  ['META_NOT_REGULAR (symlink inside)', base({ 'store/meta/copy': metaYaml({ uid: U, rv: '1' }) }), ['META_NOT_REGULAR'], (dir) => {
    fs.rmSync(path.join(dir, 'store/meta/assigned'));
    fs.symlinkSync('copy', path.join(dir, 'store/meta/assigned'));
  }],
  ['CHECKPOINT_ENTRY (symlink out of the store)', base({}), ['CHECKPOINT_ENTRY'], (dir) => fs.symlinkSync('/etc', path.join(dir, `store/checkpoints/${U}/2`))],
];

for (const [name, files, want, setup] of table) {
  t.test(name, async (t) => {
    const r = verify(t, files, setup);
    t.same(codes(r), want, JSON.stringify(r.findings.map((f) => `${f.code}: ${f.message}`), null, 1));
    t.equal(r.ok, !r.findings.some((f) => f.severity === 'error'));
    for (const f of r.findings) {
      t.match(f, { severity: /^(error|warning|info)$/, code: /^[A-Z0-9_]+$/, message: /\S/ });
      if (f.path !== null) t.notMatch(f.path, /^\//, 'paths are relative to the store');
    }
  });
}

t.test('errors sort before warnings before info', async (t) => {
  const r = verify(t, base({ [`store/checkpoints/${U}/1/kubelet`]: good('# OVERRIDE STRICT\n'), 'store/checkpoints/stray': 'x' }));
  t.same(r.findings.map((f) => f.severity), ['error', 'warning', 'info']);
});

t.test('a symlinked meta file out of the store is never read', async (t) => {
  const r = verify(t, base({ 'outside/secret': 'garbage: [' }), (dir) => {
    fs.rmSync(path.join(dir, 'store/meta/assigned'));
    fs.symlinkSync(path.join(dir, 'outside/secret'), path.join(dir, 'store/meta/assigned'));
  });
  t.same(codes(r), ['META_NOT_REGULAR'], 'the target (undecodable) was not read');
  t.match(r.findings[0]!.message, /symbolic link to .*outside\/secret/);
});

t.test('a dangling meta symlink: the kubelet cannot read it', async (t) => {
  const r = verify(t, base({}), (dir) => {
    fs.rmSync(path.join(dir, 'store/meta/assigned'));
    fs.symlinkSync('/nonexistent/x', path.join(dir, 'store/meta/assigned'));
  });
  t.same(codes(r), ['META_NOT_REGULAR', 'NEXT_BOOT_FAILS'], 'its directory does not exist: the create fails');
  t.equal(r.nextBoot.willStart, false);
});

t.test('a dangling meta symlink into a directory that exists: the kubelet creates the file, empty', async (t) => {
  // fsStore.Initialize's EnsureFile: Stat through the link says "not there", os.Create follows
  // the link and makes an empty file, which reads as "no assignment": the local config starts.
  const links: Record<string, (dir: string) => string> = {
    'a name beside it': () => 'nowhere',
    'a chain of links': (dir) => {
      fs.symlinkSync('gone/../nowhere2', path.join(dir, 'store/meta/hop'));
      fs.mkdirSync(path.join(dir, 'store/meta/gone'));
      return 'hop';
    },
    'an absolute path': (dir) => path.join(dir, 'outside-new'),
  };
  for (const [what, target] of Object.entries(links)) {
    const r = verify(t, base({}), (dir) => {
      fs.rmSync(path.join(dir, 'store/meta/assigned'));
      fs.symlinkSync(target(dir), path.join(dir, 'store/meta/assigned'));
    });
    t.same(codes(r), ['META_NOT_REGULAR'], what);
    t.same(r.nextBoot, { source: 'local', willStart: true, statusError: null }, what);
  }
  const loop = verify(t, base({}), (dir) => {
    fs.rmSync(path.join(dir, 'store/meta/assigned'));
    fs.symlinkSync('assigned', path.join(dir, 'store/meta/assigned'));
  });
  t.equal(loop.nextBoot.willStart, false, 'a loop: the create fails (ELOOP)');
});

t.test('checkpoints/ that is not a directory: the store initialisation fails; a symlink there: unknown', async (t) => {
  // Found by review: with both meta files empty, status said the local config starts (exit 0);
  // fsStore.Initialize's EnsureDir(checkpoints) fails first and the kubelet exits.
  const empty = { 'store/meta/assigned': '', 'store/meta/last-known-good': '' };
  const file = verify(t, { ...empty, 'store/checkpoints': 'not a directory\n' });
  t.same(file.nextBoot, { source: 'none', willStart: false, statusError: null });
  t.match(file.findings.find((x) => x.code === 'NEXT_BOOT_FAILS')!.message, /checkpoints is not a directory, so the kubelet's store initialisation fails and it will not start: expected dir at ".*\/store\/checkpoints", but mode is "-rw-r--r--"/);
  const fifo = verify(t, empty, (dir) => execFileSync('mkfifo', [path.join(dir, 'store/checkpoints')]));
  t.same(fifo.nextBoot, { source: 'none', willStart: false, statusError: null }, 'a FIFO');
  const meta = verify(t, { 'store/meta': 'a file\n', [`store/checkpoints/${U}/1/kubelet`]: good() });
  t.same(meta.nextBoot, { source: 'none', willStart: false, statusError: null }, 'meta/ a file: EnsureDir(meta) fails');
  const link = verify(t, empty, (dir) => fs.symlinkSync('/nonexistent/x', path.join(dir, 'store/checkpoints')));
  t.same(link.nextBoot, { source: 'unknown', willStart: null, statusError: null }, 'a symlink: followed by the kubelet, not by us');
  t.same(verify(t, empty).nextBoot, { source: 'local', willStart: true, statusError: null }, 'no checkpoints/ at all: the kubelet makes it');
});

t.test('a checkpoint directory that cannot be listed is not one without files', { skip: process.getuid?.() !== 0 && 'needs root to drop privileges' }, async (t) => {
  // Found by review: as a user who cannot list a 0700 checkpoint directory (the kubelet's own
  // mode), verify said the meta files' key was missing and last-known-good unusable.
  const dir = t.testdir();
  writeTree(dir, base({}));
  fs.chmodSync(path.join(dir, `store/checkpoints/${U}/1`), 0o700);
  const out = execFileSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, ...process.execArgv, '-e', `
    const { takeSnapshot, fsPayloadReader } = await import(${JSON.stringify(new URL('../../../lib/store/snapshot.ts', import.meta.url).href)});
    const { verifyStore } = await import(${JSON.stringify(new URL('../../../lib/integrity/verify.ts', import.meta.url).href)});
    const snap = takeSnapshot(${JSON.stringify(dir)});
    const judge = () => ({ stage: 'ok', error: null });
    console.log(JSON.stringify(verifyStore(snap, { reader: fsPayloadReader(snap), judge, local: { path: null, judgement: null } }).findings.map((f) => f.code)));
  `], { encoding: 'utf8', env: { ...process.env, OPENSSL_CONF: '/dev/null' } });
  t.same(JSON.parse(out), ['UNREADABLE']);
});

t.test('assigned and last-known-good in one checkpoint under two keys: each key is judged', async (t) => {
  // Found by review: only assigned's file was judged, so a broken last-known-good there went unreported.
  const files = {
    'store/meta/assigned': metaYaml({ uid: U, rv: '1', key: 'config.yaml' }),
    'store/meta/last-known-good': metaYaml({ uid: U, rv: '1', key: 'kubelet' }),
    [`store/checkpoints/${U}/1/config.yaml`]: good(),
    [`store/checkpoints/${U}/1/kubelet`]: good('INVALID\n'),
  };
  const r = verify(t, files);
  t.same(codes(r), ['LKG_UNUSABLE', 'PAYLOAD_INVALID']);
  t.match(r.findings.find((x) => x.code === 'PAYLOAD_INVALID'), { path: `checkpoints/${U}/1/kubelet` });
  t.same(r.nextBoot, { source: 'assigned', willStart: true, statusError: null });
  t.same(codes(verify(t, { ...files, [`store/checkpoints/${U}/1/kubelet`]: good() })), [], 'both good: nothing to say');
});

t.test('STARTUP_FAILS: the kubelet exits before it reads the store', async (t) => {
  const dir = t.testdir();
  writeTree(dir, base({}));
  const snap = takeSnapshot(dir);
  const startup = { ok: false, stage: 'flag-validate' as const, error: 'the DynamicKubeletConfig feature gate must be enabled in order to use the --dynamic-config-dir flag', subject: '--dynamic-config-dir', fix: 'add DynamicKubeletConfig=true to --feature-gates', unchecked: [] };
  const r = verifyStore(snap, { reader: fsPayloadReader(snap), judge, local: { path: null, judgement: null, startup } });
  t.same(r.findings, [{
    severity: 'error', code: 'STARTUP_FAILS', path: null, ref: null,
    message: 'the kubelet will not start: --dynamic-config-dir: the DynamicKubeletConfig feature gate must be enabled in order to use the --dynamic-config-dir flag: the kubelet exits before it reads the store (add DynamicKubeletConfig=true to --feature-gates)',
  }], 'one error, and no NEXT_BOOT_FAILS for a store the kubelet never reads');
  t.equal(r.ok, false);
  const ok = verifyStore(snap, { reader: fsPayloadReader(snap), judge, local: { path: null, judgement: null, startup: { ...startup, ok: true, stage: null, error: null } } });
  t.same(ok.findings, []);
});

t.test('PAYLOAD_INVALID names the JSON field where the kubelet uses Go names, with the real judge', async (t) => {
  const { judgeConfig } = await import('../../../lib/integrity/pipeline.js');
  const dir = t.testdir();
  const payload = `${GOOD_PAYLOAD}registerWithTaints:\n- {key: a, effect: NoSchedule}\n- {key: b, effect: Never}\nfeatureGates: {GracefulNodeShutdown: true}\nshutdownGracePeriod: 500ms\n`;
  writeTree(dir, base({ [`store/checkpoints/${U}/1/kubelet`]: payload }));
  const snap = takeSnapshot(dir);
  const r = verifyStore(snap, { reader: fsPayloadReader(snap), judge: judgeConfig({ version: '1.23', argv: [] }), local: { path: null, judgement: null } });
  const invalid = r.findings.filter((f) => f.code === 'PAYLOAD_INVALID');
  t.equal(invalid.length, 1);
  t.equal(invalid[0]!.message, 'the kubelet rejects this config ("failed to validate config"): '
    + 'invalid taint: {b  Never <nil>} (field: registerWithTaints[1].effect); '
    + 'invalid configuration: ShutdownGracePeriod {500ms} must be either zero or otherwise >= 1 sec (field: shutdownGracePeriod)');
});

t.test('CHECKPOINT_ENTRY says what the entry is: a regular file is not a special file', async (t) => {
  const r = verify(t, base({ 'store/checkpoints/stray': 'x', [`store/checkpoints/${U}/555`]: 'y' }), (dir) => {
    execFileSync('mkfifo', [path.join(dir, `store/checkpoints/${U}/fifo`)]);
  });
  t.same(r.findings.filter((f) => f.code === 'CHECKPOINT_ENTRY').map((f) => f.message).sort(), [
    `checkpoints/${U}/555 is a regular file; the kubelet only creates resourceVersion directories here`,
    `checkpoints/${U}/fifo is a special file; the kubelet only creates resourceVersion directories here`,
    'checkpoints/stray is a regular file; the kubelet only creates UID directories here',
  ]);
});

t.test('TMP_LEFTOVER: a link or FIFO named tmp_* is not called a leftover safe to remove', async (t) => {
  const r = verify(t, base({ 'store/meta/tmp_assigned1': 'x' }), (dir) => {
    execFileSync('mkfifo', [path.join(dir, 'store/meta/tmp_fifo')]);
    fs.symlinkSync('/etc', path.join(dir, 'store/meta/tmp_link'));
  });
  t.same(r.findings.filter((f) => f.code === 'TMP_LEFTOVER').map((f) => f.message).sort(), [
    'meta/tmp_assigned1 is left over from an interrupted write (by the kubelet) in meta/; safe to remove once no kubelet is writing',
    'meta/tmp_fifo is a special file named like a leftover of an interrupted write in meta/, which no write leaves; clean leaves it alone: inspect it and remove it by hand',
    'meta/tmp_link is a symbolic link to /etc named like a leftover of an interrupted write in meta/, which no write leaves; clean leaves it alone: inspect it and remove it by hand',
  ]);
});

t.test('a checkpoint file whose name starts with "..": no ConfigMap key does, so the kubelet never wrote it', async (t) => {
  const r = verify(t, base({ [`store/checkpoints/${U}/1/..data`]: 'x' }));
  t.match(r.findings.filter((x) => x.code === 'CHECKPOINT_ENTRY').map((x) => x.message), [/\.\.data: the file name starts with '\.\.', which a ConfigMap key may not/]);
});

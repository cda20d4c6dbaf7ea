// Every command and option is in --help and in its man page; the roff pages are current.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { repoRoot, runCli } from './helpers.js';

const man = (name: string) => {
  const p = path.join(repoRoot, 'man', `${name}.md`);
  return fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : null;
};

/** Command names from the top-level help. */
function commands(): string[] {
  const out = runCli(['--help']).stdout;
  return [...out.matchAll(/^\s+kubelet-ckpt (\w[\w-]*)/gm)].map((m) => m[1]!);
}

/** The command's own options: yargs lists them under "Options:", after "Global options:". */
function optionsOf(help: string): string[] {
  const section = (help.split(/\nOptions:\n/)[1] ?? '').split(/\n\n/)[0]!;
  return [...section.matchAll(/^\s+(?:-\w, )?(--[\w-]+)/gm)].map((m) => m[1]!).filter((o) => o !== '--help' && o !== '--version');
}

t.test('every command has a man page that names every option', async (t) => {
  const cmds = commands();
  t.ok(cmds.length >= 5, `commands found: ${cmds.join(', ')}`);
  const top = man('kubelet-ckpt')!;
  for (const c of cmds) {
    const page = man(`kubelet-ckpt-${c}`);
    t.ok(page, `man/kubelet-ckpt-${c}.md exists`);
    t.match(top, new RegExp('`' + c + '`'), `kubelet-ckpt(1) lists ${c}`);
    const help = runCli([c, '--help']).stdout;
    for (const o of optionsOf(help)) t.ok(page?.includes('`' + o), `${c}: ${o} documented in its man page`);
  }
});

t.test('global options are in --help and kubelet-ckpt(1)', async (t) => {
  const help = runCli(['--help']).stdout;
  const top = man('kubelet-ckpt')!;
  for (const o of ['--dir', '--root', '--kubelet-config', '--output', '--no-color', '--kubelet-version', '--quiet', '--verbose']) {
    t.ok(help.includes(o.replace('--no-color', '--color')), `--help shows ${o}`);
    t.ok(top.includes('`' + o), `kubelet-ckpt(1) documents ${o}`);
  }
});

t.test('man/*.1 are generated from man/*.md and render', async (t) => {
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'scripts/man.mjs'), '--check'], { encoding: 'utf8' });
  t.equal(r.status, 0, r.stderr);
  const m = spawnSync('man', ['-l', path.join(repoRoot, 'man/kubelet-ckpt.1')], { encoding: 'utf8', env: { ...process.env, MANPAGER: 'cat', PAGER: 'cat', MANWIDTH: '80' } });
  if (m.error) t.skip('man is not installed');
  else t.match(m.stdout, /KUBELET-CKPT\(1\)/);
});

t.test('JSON shapes are literal code blocks: man neither justifies nor hyphenates inside field names', async (t) => {
  for (const f of fs.readdirSync(path.join(repoRoot, 'man')).filter((n) => n.endsWith('.md'))) {
    const md = fs.readFileSync(path.join(repoRoot, 'man', f), 'utf8');
    const m = /\n## JSON\n([\s\S]*?)(?=\n## |$)/.exec(md);
    if (!m) continue;
    const inline = [...m[1]!.matchAll(/`(\{[^`]*\})`/g)].map((x) => x[1]!).filter((x) => x.length > 40);
    t.same(inline, [], `${f}: no long JSON shape as inline code`);
    for (const l of m[1]!.split('\n').filter((l) => l.startsWith('    '))) t.ok(l.length <= 78, `${f}: a code line fits 80 columns: ${l}`);
    const roff = fs.readFileSync(path.join(repoRoot, 'man', f.replace(/\.md$/, '.1')), 'utf8');
    const section = /\n\.SH "?JSON"?\n([\s\S]*?)(?=\n\.SH |$)/.exec(roff)?.[1] ?? '';
    t.match(section, /\.nf\n/, `${f}: the JSON section has a no-fill block`);
  }
});

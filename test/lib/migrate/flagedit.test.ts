// The byte-preserving flag editor and the argv it must produce, as tables.
import t from 'tap';
import { editFlagText } from '../../../lib/migrate/flagedit.js';
import { migratedArgv } from '../../../lib/migrate/plan.js';

const DIR = '--dynamic-config-dir=/var/lib/kubelet/dynamic-config';

t.test('env files', async (t) => {
  const cases: [string, string, string][] = [
    ['quoted, middle', `A="--x=1 ${DIR} --y=2"\n`, 'A="--x=1 --y=2"\n'],
    ['quoted, first', `A="${DIR} --y=2"\n`, 'A="--y=2"\n'],
    ['quoted, last', `A="--x=1 ${DIR}"\n`, 'A="--x=1"\n'],
    ['unquoted', `KUBELET_EXTRA_ARGS=${DIR} --node-ip=1.2.3.4\n`, 'KUBELET_EXTRA_ARGS=--node-ip=1.2.3.4\n'],
    ['single quotes', `A='--x=1 ${DIR}'\n`, "A='--x=1'\n"],
    ['space form', 'A="--x=1 --dynamic-config-dir /d --y"\n', 'A="--x=1 --y"\n'],
    ['gate among others', 'A="--feature-gates=X=true,DynamicKubeletConfig=true,Y=false"\n', 'A="--feature-gates=X=true,Y=false"\n'],
    ['only gate', 'A="--x --feature-gates=DynamicKubeletConfig=true"\n', 'A="--x"\n'],
    ['gate, space form', 'A="--feature-gates DynamicKubeletConfig=false --x"\n', 'A="--x"\n'],
    ['continued lines', `A="--a \\\n${DIR} \\\n--feature-gates=DynamicKubeletConfig=true \\\n--b"\n`, 'A="--a \\\n--b"\n'],
    ['last of a chain', `A=--a \\\n  ${DIR}\nB=1\n`, 'A=--a\nB=1\n'],
    ['comments untouched', `# ${DIR}\nA="${DIR}"\n`, `# ${DIR}\nA=""\n`],
    ['CRLF kept', `A="--x ${DIR}"\r\nB=1\r\n`, 'A="--x"\r\nB=1\r\n'],
    ['nothing to do', 'A="--x=1"\n', 'A="--x=1"\n'],
  ];
  for (const [name, input, want] of cases) {
    const e = editFlagText(input, 'env');
    t.equal(e.text, want, name);
    t.same(e.problems, [], `${name}: no problems`);
  }
});

t.test('units: only [Service] ExecStart/Environment, several places, --config put in the first', async (t) => {
  const unit = `[Unit]\nDescription=${DIR}\n[Service]\nEnvironment="D=${DIR}"\nExecStart=/usr/bin/kubelet \\\n  --a \\\n  --dynamic-config-dir /x \\\n  --b\n`;
  const e = editFlagText(unit, 'unit', { addConfig: '/var/lib/kubelet/config.yaml' });
  t.equal(e.text, `[Unit]\nDescription=${DIR}\n[Service]\nEnvironment="D=--config=/var/lib/kubelet/config.yaml"\nExecStart=/usr/bin/kubelet \\\n  --a \\\n  --b\n`);
  t.ok(e.placedConfig);
  t.same(e.edits.map((x) => x.line), [4, 7]);
});

t.test('units: comment lines inside a continuation are no part of it (systemd.syntax(7)) and stay as they are', async (t) => {
  const head = '[Service]\nExecStart=/usr/bin/kubelet \\\n  --v=2 \\\n#  --config=/old.yaml \\\n  ; --dynamic-config-dir=/old "\n';
  const unit = `${head}  ${DIR} \\\n# last\n  --feature-gates=DynamicKubeletConfig=true\nRestart=always\n`;
  const e = editFlagText(unit, 'unit', { addConfig: '/var/lib/kubelet/config.yaml' });
  t.same(e.problems, [], 'the quote in a comment opens nothing');
  t.equal(e.text, `${head}  --config=/var/lib/kubelet/config.yaml\n# last\nRestart=always\n`, 'the last flag gone with the backslash before it, past the comment');
  t.same(e.edits.map((x) => x.line), [6, 8]);
});

t.test('configAt: --config takes the place of the n-th --dynamic-config-dir of the file', async (t) => {
  const unit = `[Service]\nEnvironment="D=${DIR}"\nExecStart=/usr/bin/kubelet $D ${DIR}\n`;
  const second = editFlagText(unit, 'unit', { addConfig: '/c.yaml', configAt: 1 });
  t.equal(second.text, '[Service]\nEnvironment="D="\nExecStart=/usr/bin/kubelet $D --config=/c.yaml\n');
  t.ok(second.placedConfig);
  const none = editFlagText(unit, 'unit', { addConfig: '/c.yaml', configAt: 2 });
  t.notOk(none.placedConfig, 'there is no third: nothing placed, both removed');
  t.equal(none.text, '[Service]\nEnvironment="D="\nExecStart=/usr/bin/kubelet $D\n');
});

t.test('units: a flag quoted on its own goes with its quotes (no empty "" argument left)', async (t) => {
  const cases: [string, string][] = [
    [`ExecStart=/k "${DIR}" --v=2\n`, 'ExecStart=/k --v=2\n'],
    [`ExecStart=/k --v=2 '${DIR}'\n`, 'ExecStart=/k --v=2\n'],
    [`ExecStart=/k "--x=1" \\\n  "--feature-gates=DynamicKubeletConfig=true" \\\n  --v=2\n`, 'ExecStart=/k "--x=1" \\\n  --v=2\n'],
    ['ExecStart=/k "--feature-gates=A=true,DynamicKubeletConfig=true" --v=2\n', 'ExecStart=/k "--feature-gates=A=true" --v=2\n'],
    [`Environment="D=${DIR}"\n`, 'Environment="D="\n'],
  ];
  for (const [input, want] of cases) t.equal(editFlagText(`[Service]\n${input}`, 'unit').text, `[Service]\n${want}`, input);
  t.equal(editFlagText(`[Service]\nExecStart=/k "${DIR}"\n`, 'unit', { addConfig: '/c.yaml' }).text, '[Service]\nExecStart=/k "--config=/c.yaml"\n', 'replaced in its quotes');
});

t.test('what cannot be edited safely is reported with its line', async (t) => {
  const e = editFlagText(`X=1\nA="--x ${DIR}\n`, 'env');
  t.same(e.problems, [{ line: 2, action: 'a quote opened on this line is never closed: cannot tell where the flags end' }]);
  t.equal(e.text, `X=1\nA="--x ${DIR}\n`, 'left as it was');
  t.same(editFlagText('A="--dynamic-config-dir"\n', 'env').problems.map((p) => p.line), [1]);
});

t.test('an env file\'s quoted value that spans lines is edited in place (systemd.exec(5))', async (t) => {
  const text = `X=1\nKUBELET_EXTRA_ARGS="--node-ip=10.0.0.5\n${DIR}\n  --feature-gates=DynamicKubeletConfig=true,A=true\n--v=2"\nY=2\n`;
  const e = editFlagText(text, 'env');
  t.same(e.problems, []);
  t.equal(e.text, 'X=1\nKUBELET_EXTRA_ARGS="--node-ip=10.0.0.5\n  --feature-gates=A=true\n--v=2"\nY=2\n', 'the emptied line inside the quotes goes; the rest stays byte for byte');
  t.same(e.edits.map((x) => x.line), [3, 4], 'lines of the original file');
  // The quote closes on a line of its own; --config takes the flag's place.
  const closing = `A='${DIR}\n--feature-gates=DynamicKubeletConfig=true\n'\n`;
  t.equal(editFlagText(closing, 'env', { addConfig: '/c.yaml' }).text, "A='--config=/c.yaml\n'\n");
  // A quote no later line closes is still one line, and said so; the lines after it are their own.
  const open = editFlagText(`A="--x ${DIR}\nB=${DIR}\n`, 'env');
  t.same(open.problems, [{ line: 1, action: 'a quote opened on this line is never closed: cannot tell where the flags end' }]);
  t.equal(open.text, `A="--x ${DIR}\nB=\n`);
  // In a unit file quotes never span lines (only a trailing backslash continues one).
  t.same(editFlagText(`[Service]\nEnvironment="A=--x\n${DIR}"\n`, 'unit').edits, []);
});

t.test('a quote left open is found in one scan, however long the file (found by review: quadratic)', async (t) => {
  const text = `A="--x ${DIR}\n${'B=1\n'.repeat(200_000)}`;
  const e = editFlagText(text, 'env');
  t.same(e.problems, [{ line: 1, action: 'a quote opened on this line is never closed: cannot tell where the flags end' }]);
  t.equal(e.text, text);
});

t.test('migratedArgv: the words the edited files must give', async (t) => {
  t.same(migratedArgv(['kubelet', '--a', DIR, '--feature-gates=X=true,DynamicKubeletConfig=true', '--b'], null), ['kubelet', '--a', '--feature-gates=X=true', '--b']);
  t.same(migratedArgv(['kubelet', '--dynamic-config-dir', '/d', '--feature-gates', 'DynamicKubeletConfig=true'], '/c.yaml'), ['kubelet', '--config=/c.yaml']);
  t.same(migratedArgv(['kubelet', '--feature-gates=X=true'], null), ['kubelet', '--feature-gates=X=true']);
});

t.test('a flag whose own value is quoted is a problem, never a half edit (found by review)', async (t) => {
  const cases: [string, FlagFileKindT, string][] = [
    ['--flag="value"', 'unit', '[Service]\nExecStart=/usr/bin/kubelet --dynamic-config-dir="/var/lib/kubelet/dynamic-config" --x\n'],
    ['gates="a, b"', 'unit', '[Service]\nExecStart=/usr/bin/kubelet --feature-gates="CPUManager=true, DynamicKubeletConfig=true"\n'],
    ["--flag='value' in an env file", 'env', "A=--dynamic-config-dir='/d' --x\n"],
  ];
  for (const [name, kind, input] of cases) {
    const e = editFlagText(input, kind, { addConfig: '/c.yaml' });
    t.match(e.problems, [{ line: kind === 'unit' ? 2 : 1, action: /^the value of --(dynamic-config-dir|feature-gates) is quoted: kubelet-ckpt edits only unquoted flag values$/ }], name);
    t.notMatch(e.text, /--config=\/c\.yaml"|=""|--dynamic-config-dir="?\s/, `${name}: no broken splice`);
  }
  // Own quotes around a whole word or value stay handled.
  const own = editFlagText('[Service]\nExecStart=/k "--dynamic-config-dir=/d" --x\n', 'unit');
  t.same([own.problems, own.text], [[], '[Service]\nExecStart=/k --x\n']);
  t.same(editFlagText('A="--x --dynamic-config-dir=/d"\n', 'env').problems, []);
});
type FlagFileKindT = 'unit' | 'env';

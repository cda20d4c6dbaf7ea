// accessibleFile and findOnPath: regular files only, PATH order, names with a slash taken as paths.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { accessibleFile, findOnPath } from '../../lib/onpath.js';

t.test('accessibleFile: a regular file (through links), never a directory or nothing', async (t) => {
  const dir = t.testdir({ 'f.conf': 'x', sub: {} });
  fs.symlinkSync(path.join(dir, 'f.conf'), path.join(dir, 'link'));
  t.equal(accessibleFile(path.join(dir, 'f.conf'), fs.constants.R_OK), true);
  t.equal(accessibleFile(path.join(dir, 'link'), fs.constants.R_OK), true, 'a link to a file');
  t.equal(accessibleFile(path.join(dir, 'sub'), fs.constants.R_OK), false, 'a directory');
  t.equal(accessibleFile(path.join(dir, 'nope'), fs.constants.R_OK), false);
  t.equal(accessibleFile(path.join(dir, 'f.conf', 'x'), fs.constants.R_OK), false, 'ENOTDIR');
});

t.test('findOnPath: the first executable on PATH; a name with a slash is a path', async (t) => {
  const dir = t.testdir({ a: { tool: '#!/bin/sh\n' }, b: { tool: '#!/bin/sh\n', dir: { tool: {} } } });
  fs.chmodSync(path.join(dir, 'a/tool'), 0o644);
  fs.chmodSync(path.join(dir, 'b/tool'), 0o755);
  t.equal(findOnPath('tool', `${path.join(dir, 'a')}::${path.join(dir, 'b')}`), path.join(dir, 'b/tool'), 'not executable in a/: b/');
  t.equal(findOnPath(path.join(dir, 'b/tool'), ''), path.join(dir, 'b/tool'));
  t.equal(findOnPath('./nope/tool', path.join(dir, 'b')), null, 'a relative path is not looked up on PATH');
  t.equal(findOnPath('tool', path.join(dir, 'b/dir')), null, 'a directory is not an executable');
  t.equal(findOnPath('tool', ''), null);
});

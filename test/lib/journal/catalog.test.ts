// Every event kind in both kubelet eras (legacy printf 1.10–1.20, structured 1.21–1.23), the
// server.go lines, and systemd's lines about the unit across systemd versions.
import t from 'tap';
import { EVENT_KINDS, type EventKind, type JournalEvent } from '../../../lib/journal/events.js';
import { LineParser } from '../../../lib/journal/lines.js';

const U = '705ab4f5-6393-11e8-b7cc-42010a800002';
const P = '/api/v1/namespaces/kube-system/configmaps/my-node-config-9mbkccg2cc';
const hdr = (sev: string, site: string) => `${sev}1122 08:46:32.295868   21991 ${site}] `;
const L = (site: string, text: string, sev = 'I') => `${hdr(sev, site)}kubelet config controller: ${text}`;
const S = (site: string, body: string, sev = 'I') => `${hdr(sev, site)}${body}`;

type Want = Partial<Pick<JournalEvent, 'uid' | 'resourceVersion' | 'apiPath' | 'key' | 'exitStatus'>> & { kind: EventKind };
const PUR = { apiPath: P, uid: U, resourceVersion: '1326' };

const KUBELET: Array<[string, string, Want]> = [
  // controller-start
  ['legacy', L('controller.go:101', 'starting controller'), { kind: 'controller-start' }],
  ['1.21+', S('controller.go:101', '"Kubelet config controller starting controller"'), { kind: 'controller-start' }],
  // store-init
  ['legacy', L('fsstore.go:59', 'initializing config checkpoints directory "/etc/kubernetes/kubelet/store"'), { kind: 'store-init' }],
  ['1.21+', S('fsstore.go:59', '"Kubelet config controller initializing config checkpoints directory" path="/var/lib/kubelet/dynamic-config/store"'), { kind: 'store-init' }],
  // checkpoint-load
  ['legacy', L('fsstore.go:116', `loading Kubelet configuration checkpoint for source ${P}, UID: ${U}, ResourceVersion: 1326`), { kind: 'checkpoint-load', ...PUR }],
  ['1.10', L('fsstore.go:116', `loading kubelet configuration checkpoint for source ${P}:${U}`), { kind: 'checkpoint-load', apiPath: P, uid: U, resourceVersion: null }],
  ['1.21+', S('fsstore.go:116', `"Kubelet config controller loading Kubelet configuration checkpoint for source" apiPath="${P}" sourceUID="${U}" resourceVersion="1326"`), { kind: 'checkpoint-load', ...PUR }],
  // load-failed / validate-failed / internal-error (the bootstrap's rejection)
  ['legacy', L('controller.go:151', "failed to load config, see Kubelet log for details, error: failed to decode: Object 'Kind' is missing in '{", 'E'), { kind: 'load-failed', uid: null }],
  ['legacy', L('controller.go:151', `failed to load config, see Kubelet log for details, error: no checkpoint for source ${P}, UID: ${U}, ResourceVersion: 1326`, 'E'), { kind: 'load-failed', ...PUR }],
  ['1.10', L('controller.go:151', 'failed to parse current: bad, error: x', 'E'), { kind: 'load-failed' }],
  ['1.21+', S('controller.go:151', '"Kubelet config controller" err="failed to decode: x" reason="failed to load config, see Kubelet log for details"', 'E'), { kind: 'load-failed' }],
  ['legacy', L('controller.go:151', 'failed to validate config, see Kubelet log for details, error: invalid configuration: healthzPort (--healthz-port) 70000 must be between 1 and 65535, inclusive', 'E'), { kind: 'validate-failed' }],
  ['1.10', L('controller.go:151', 'failed to validate current: x, error: y', 'E'), { kind: 'validate-failed' }],
  ['1.21+', S('controller.go:151', '"Kubelet config controller" err="invalid configuration: healthzPort (--healthz-port) 70000 must be between 1 and 65535, inclusive" reason="failed to validate config, see Kubelet log for details"', 'E'), { kind: 'validate-failed' }],
  ['legacy', L('controller.go:151', 'internal failure, see Kubelet log for details, error: failed to apply flag precedence', 'E'), { kind: 'internal-error' }],
  ['1.21+', S('controller.go:151', '"Kubelet config controller" err="x" reason="internal failure, see Kubelet log for details"', 'E'), { kind: 'internal-error' }],
  // bootstrap-failed
  ['legacy', S('server.go:262', "failed to determine a valid configuration, error: failed to decode, error: couldn't get version/kind", 'F'), { kind: 'bootstrap-failed' }],
  ['legacy', S('server.go:262', 'cannot bootstrap Kubelet config controller, --dynamic-config-dir was not provided', 'F'), { kind: 'bootstrap-failed' }],
  ['legacy', S('server.go:262', 'failed to bootstrap Kubelet config controller, you must enable the DynamicKubeletConfig feature gate', 'F'), { kind: 'bootstrap-failed' }],
  ['1.21+', S('server.go:285', '"Failed to bootstrap a configuration controller" err="failed to determine a valid configuration, error: x" dynamicConfigDir="/var/lib/kubelet/dynamic-config"', 'E'), { kind: 'bootstrap-failed' }],
  // source-updated
  ['legacy', L('watch.go:128', 'assigned ConfigMap was updated'), { kind: 'source-updated' }],
  ['legacy', L('watch.go:128', 'Node.Spec.ConfigSource was updated'), { kind: 'source-updated' }],
  ['legacy', L('watch.go:128', 'assigned ConfigMap was deleted'), { kind: 'source-updated' }],
  ['1.21+', S('watch.go:128', '"Kubelet config controller assigned ConfigMap was updated"'), { kind: 'source-updated' }],
  ['1.21+', S('watch.go:128', '"Kubelet config controller Node.Spec.ConfigSource was updated"'), { kind: 'source-updated' }],
  ['1.21+', S('watch.go:128', '"Kubelet config controller assigned ConfigMap was deleted"'), { kind: 'source-updated' }],
  // downloaded
  ['legacy', L('download.go:187', `found ${P} in in-memory store, UID: ${U}, ResourceVersion: 1326`), { kind: 'downloaded', ...PUR }],
  ['legacy', L('download.go:202', `successfully downloaded ${P}, UID: ${U}, ResourceVersion: 1326`), { kind: 'downloaded', ...PUR }],
  ['1.21+', S('download.go:202', `"Kubelet config controller successfully downloaded remoteConfigMap" apiPath="${P}" configMapUID=${U} resourceVersion="1326"`), { kind: 'downloaded', ...PUR }],
  ['1.21+', S('download.go:187', `"Kubelet config controller found remoteConfigMap in in-memory store" apiPath="${P}" configMapUID=${U} resourceVersion="1326"`), { kind: 'downloaded', ...PUR }],
  // checkpoint-exists
  ['legacy', L('configsync.go:131', `checkpoint already exists for ${P}, UID: ${U}, ResourceVersion: 1326`), { kind: 'checkpoint-exists', ...PUR }],
  ['1.10', L('configsync.go:131', `checkpoint already exists for object ${P} with UID ${U}, skipping download`), { kind: 'checkpoint-exists', apiPath: P, uid: U }],
  ['1.21+', S('configsync.go:131', `"Kubelet config controller checkpoint already exists for source" apiPath="${P}" checkpointUID="${U}" resourceVersion="1326"`), { kind: 'checkpoint-exists', ...PUR }],
  // restart-for-config / restart-for-local
  ['legacy', L('configsync.go:205', `Kubelet restarting to use ${P}, UID: ${U}, ResourceVersion: 1326, KubeletConfigKey: kubelet`), { kind: 'restart-for-config', ...PUR, key: 'kubelet' }],
  ['1.21+', S('configsync.go:205', `"Kubelet config controller event" message="Kubelet restarting to use ${P}, UID: ${U}, ResourceVersion: 1326, KubeletConfigKey: kubelet"`), { kind: 'restart-for-config', ...PUR, key: 'kubelet' }],
  ['legacy', L('configsync.go:205', 'Kubelet restarting to use local config'), { kind: 'restart-for-local' }],
  ['1.21+', S('configsync.go:205', '"Kubelet config controller event" message="Kubelet restarting to use local config"'), { kind: 'restart-for-local' }],
  ['transitional shim', S('log.go:44', '"Kubelet config controller" message="Kubelet restarting to use local config"'), { kind: 'restart-for-local' }],
  // reset-requested
  ['legacy', L('configsync.go:90', 'Node.Spec.ConfigSource is empty, will reset assigned and last-known-good to defaults'), { kind: 'reset-requested' }],
  ['1.10', L('configsync.go:90', 'Node.Spec.ConfigSource is empty, will reset current and last-known-good to defaults'), { kind: 'reset-requested' }],
  ['1.21+', S('configsync.go:90', '"Kubelet config controller Node.Spec.ConfigSource is empty, will reset assigned and last-known-good to defaults"'), { kind: 'reset-requested' }],
  // lkg-updated
  ['legacy', L('controller.go:298', `updated last-known-good config to ${P}, UID: ${U}, ResourceVersion: 1326`), { kind: 'lkg-updated', ...PUR }],
  ['1.21+', S('controller.go:298', `"Kubelet config controller updated last-known-good config to new checkpointStore" apiPath="${P}" checkpointUID="${U}" resourceVersion="1326"`), { kind: 'lkg-updated', ...PUR }],
  // sync-failed
  ['legacy', L('configsync.go:89', 'failed to sync: failed to download config, see Kubelet log for details, error: configmaps "c" not found', 'E'), { kind: 'sync-failed' }],
  ['legacy', L('configsync.go:89', 'internal failure, see Kubelet log for details, error: Node "n1" does not exist in the informer\'s store, can\'t sync config source', 'E'), { kind: 'sync-failed' }],
  ['1.21+', S('configsync.go:89', '"Kubelet config controller" err="failed to sync: failed to download config, see Kubelet log for details, error: configmaps \\"c\\" not found"', 'E'), { kind: 'sync-failed' }],
  ['1.21+', S('configsync.go:160', '"Kubelet config controller" err="failed to retrieve Node \\"n1\\" from informer\'s store, error: x"', 'E'), { kind: 'sync-failed' }],
  // feature-gate-off
  ['1.22+', S('server.go:194', '"Failed to validate kubelet flags" err="the DynamicKubeletConfig feature gate must be enabled in order to use the --dynamic-config-dir flag"', 'E'), { kind: 'feature-gate-off' }],
  // deprecated-flag: pflag's stderr, no klog header
  ['1.22+', 'Flag --dynamic-config-dir has been deprecated, Feature DynamicKubeletConfig is deprecated in 1.22 and will not move to GA.', { kind: 'deprecated-flag' }],
];

const SYSTEMD: Array<[string, string, Want]> = [
  ['v240-v247', 'kubelet.service: Succeeded.', { kind: 'kubelet-exited', exitStatus: 0 }],
  ['v248+', 'kubelet.service: Deactivated successfully.', { kind: 'kubelet-exited', exitStatus: 0 }],
  ['v233+', 'kubelet.service: Main process exited, code=exited, status=255/n/a', { kind: 'kubelet-exited', exitStatus: 255 }],
  ['v249', 'kubelet.service: Main process exited, code=exited, status=1/FAILURE', { kind: 'kubelet-exited', exitStatus: 1 }],
  ['v219', 'kubelet.service: main process exited, code=exited, status=255/n/a', { kind: 'kubelet-exited', exitStatus: 255 }],
  ['signal', 'kubelet.service: Main process exited, code=killed, status=9/KILL', { kind: 'kubelet-exited', exitStatus: 9 }],
  ['v236+', 'kubelet.service: Scheduled restart job, restart counter is at 19.', { kind: 'restart-scheduled' }],
  ['v219', 'kubelet.service holdoff time over, scheduling restart.', { kind: 'restart-scheduled' }],
  ['~v236', 'kubelet.service: Service hold-off time over, scheduling restart.', { kind: 'restart-scheduled' }],
  ['~v239', 'kubelet.service: Service RestartSec=100ms expired, scheduling restart.', { kind: 'restart-scheduled' }],
  ['kubeadm', 'Started kubelet: The Kubernetes Node Agent.', { kind: 'kubelet-started' }],
  ['v250+', 'Started kubelet.service - kubelet: The Kubernetes Node Agent.', { kind: 'kubelet-started' }],
  ['other distro', 'Started Kubernetes Kubelet Server.', { kind: 'kubelet-started' }],
  ['v230+', 'kubelet.service: Start request repeated too quickly.', { kind: 'start-limit-hit' }],
  ['v219', 'start request repeated too quickly for kubelet.service', { kind: 'start-limit-hit' }],
];

function parseOne(line: string): { events: JournalEvent[]; skipped: number } {
  const events: JournalEvent[] = [];
  const p = new LineParser('test', (r) => events.push(r.event));
  p.line(line);
  return { events, skipped: p.skipped };
}

t.test('kubelet lines: every kind, both eras', async (t) => {
  for (const [era, line, want] of KUBELET) {
    const { events } = parseOne(`Nov 22 08:46:32 n1 kubelet[21991]: ${line}`);
    t.equal(events.length, 1, `${era} ${want.kind}: one event`);
    t.match(events[0], { pid: 21991, exitStatus: null, ...want }, `${era}: ${line.slice(0, 100)}`);
    if (want.kind !== 'restart-for-config') t.equal(events[0]?.key, null, 'only the restart line names the key');
  }
});

t.test('systemd lines about the unit, across versions', async (t) => {
  for (const [version, msg, want] of SYSTEMD) {
    const { events } = parseOne(`Aug 21 18:54:34 localhost.worker systemd[1]: ${msg}`);
    t.match(events, [{ pid: 1, message: msg, ...want }], `${version}: ${msg}`);
    // `cat` output: the message alone
    t.match(parseOne(msg).events, [{ pid: null, time: null, ...want }], `${version} (cat): ${msg}`);
  }
});

t.test('every kind is covered by the tables', async (t) => {
  const covered = new Set([...KUBELET, ...SYSTEMD].map(([, , w]) => w.kind));
  t.same(EVENT_KINDS.filter((k) => !covered.has(k)), []);
  const eras = (k: EventKind) => new Set(KUBELET.filter(([, , w]) => w.kind === k).map(([e]) => (e === '1.21+' || e === '1.22+' ? 'structured' : 'legacy')));
  for (const k of EVENT_KINDS) {
    if (['kubelet-exited', 'restart-scheduled', 'kubelet-started', 'start-limit-hit'].includes(k)) continue;
    if (k === 'feature-gate-off' || k === 'deprecated-flag') continue; // 1.22+ only
    t.same([...eras(k)].sort(), ['legacy', 'structured'], `${k} in both eras`);
  }
});

t.test('ids are null when the line does not carry them', async (t) => {
  const { events } = parseOne(`Nov 22 08:46:32 n1 kubelet[21991]: ${L('watch.go:128', 'assigned ConfigMap was updated')}`);
  t.match(events[0], { uid: null, resourceVersion: null, apiPath: null, key: null, exitStatus: null });
});

t.test('not events: other controller lines are skipped and counted; unrelated lines are not counted', async (t) => {
  const counted = [
    L('controller.go:159', 'starting status sync loop'),
    L('download.go:181', `checking in-memory store for ${P}`),
    S('configsync.go:96', '"Kubelet config controller Node.Spec.ConfigSource is non-empty, will checkpoint source and update config if necessary"'),
    S('status.go:157', '"Kubelet config controller" err="could not get Node"', 'E'),
    L('controller.go:290', 'failed to check trial period for assigned config, error: x', 'E'),
  ];
  for (const l of counted) t.match(parseOne(`Nov 22 08:46:32 n1 kubelet[1]: ${l}`), { events: [], skipped: 1 }, l.slice(30, 100));
  const unrelated = [S('server.go:1190', 'Started kubelet'), S('cgroup.go:1', 'Using cgroup driver "systemd"')];
  for (const l of unrelated) t.match(parseOne(`Nov 22 08:46:32 n1 kubelet[1]: ${l}`), { events: [], skipped: 0 }, l.slice(30));
  t.match(parseOne('Nov 22 08:46:32 n1 systemd[1]: Started Session 5 of user root.'), { events: [], skipped: 0 }, 'systemd about another unit');
  t.match(parseOne("Nov 22 08:46:32 n1 systemd[1]: kubelet.service: Failed with result 'exit-code'."), { events: [], skipped: 1 }, 'systemd about kubelet, no kind');
  t.match(parseOne('Nov 22 08:46:32 n1 systemd[1]: Stopped kubelet: The Kubernetes Node Agent.'), { events: [], skipped: 1 });
});

t.test('a kubelet line that merely mentions systemd words is not systemd', async (t) => {
  const { events } = parseOne(`Nov 22 08:46:32 n1 kubelet[1]: ${S('server.go:1', 'kubelet.service: Succeeded.')}`);
  t.same(events, []);
});

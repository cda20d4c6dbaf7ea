// InitializeTLS (cmd/kubelet/app/server.go, 1.20–1.23), which runs once the config is final
// (a checkpoint already adopted): names in tlsCipherSuites and tlsMinVersion that
// component-base's cli/flag does not know stop the kubelet there, at every start, after
// validation passed (ValidateKubeletConfiguration has no rule for them in these releases).

import { goQuote } from './gostrconv.js';

/**
 * cliflag.TLSCipherSuites' names on 1.20–1.23: crypto/tls's suites, secure and insecure
 * (the IANA names), and the two short ChaCha20 names kept for old configs.
 */
const CIPHER_SUITES: ReadonlySet<string> = new Set([
  'TLS_RSA_WITH_RC4_128_SHA', 'TLS_RSA_WITH_3DES_EDE_CBC_SHA', 'TLS_RSA_WITH_AES_128_CBC_SHA', 'TLS_RSA_WITH_AES_256_CBC_SHA',
  'TLS_RSA_WITH_AES_128_CBC_SHA256', 'TLS_RSA_WITH_AES_128_GCM_SHA256', 'TLS_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_ECDSA_WITH_RC4_128_SHA', 'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA', 'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_RC4_128_SHA', 'TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA', 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA', 'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256', 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384', 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305',
  'TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256',
]);

/** cliflag.TLSVersion's names (an empty value is the default). */
const TLS_VERSIONS: ReadonlySet<string> = new Set(['VersionTLS10', 'VersionTLS11', 'VersionTLS12', 'VersionTLS13']);

/** The error InitializeTLS stops with on this (final, v1beta1) config, or null; cipher suites are read first. */
export function tlsError(config: Record<string, unknown> | null): string | null {
  const suites = config?.tlsCipherSuites;
  if (Array.isArray(suites)) {
    for (const s of suites) if (!CIPHER_SUITES.has(String(s))) return `Cipher suite ${String(s)} not supported or doesn't exist`;
  }
  const v = config?.tlsMinVersion;
  if (typeof v === 'string' && v !== '' && !TLS_VERSIONS.has(v)) return `unknown tls version ${goQuote(v)}`;
  return null;
}

// Regenerates the TypeScript of the gRPC binding from proto/ (A2A's a2a.proto and the
// googleapis files it and our error details need) with buf and protoc-gen-es, into
// src/grpc/gen/ or the folder given as the first argument. Runs offline: buf compiles the
// well-known types from its own copy, and every other import is in proto/.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = resolve(process.argv[2] ?? join(root, 'src', 'grpc', 'gen'));
const template = {
  version: 'v2',
  plugins: [{ local: join(root, 'node_modules', '.bin', 'protoc-gen-es'), out, opt: ['target=ts', 'import_extension=js'] }],
};

rmSync(out, { recursive: true, force: true });
try {
  execFileSync(join(root, 'node_modules', '.bin', 'buf'), ['generate', join(root, 'proto'), '--template', JSON.stringify(template)], { cwd: root, stdio: 'inherit' });
} catch {
  process.exit(1); // buf printed its own errors.
}

// The client suite against servers built with the official @a2a-js/sdk: its 1.0 release over
// JSON-RPC, HTTP+JSON and gRPC, and its 0.3 release (installed as a2a-js-sdk-v03) over JSON-RPC.
import { startSdkPeer } from '../interop/peers/sdk-peer.js';
import { clientSuite } from './suite.js';

clientSuite('@a2a-js/sdk 1.3', () => startSdkPeer({ version: '1.0' }), 'JSONRPC', '1.0');
clientSuite('@a2a-js/sdk 1.3', () => startSdkPeer({ version: '1.0' }), 'HTTP+JSON', '1.0');
clientSuite('@a2a-js/sdk 1.3', () => startSdkPeer({ version: '1.0', grpc: true }), 'GRPC', '1.0');
clientSuite('@a2a-js/sdk 0.3.14', () => startSdkPeer({ version: '0.3' }), 'JSONRPC', '0.3');
clientSuite('@a2a-js/sdk 1.3 with a bearer token', () => startSdkPeer({ version: '1.0', token: 'sdk-token-0123456789' }), 'JSONRPC', '1.0', 'sdk-token-0123456789');
clientSuite('@a2a-js/sdk 0.3.14 with a bearer token', () => startSdkPeer({ version: '0.3', token: 'sdk-token-0123456789' }), 'JSONRPC', '0.3', 'sdk-token-0123456789');

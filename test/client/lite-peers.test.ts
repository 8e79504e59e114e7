// The client suite against our own server, over each interface it serves.
import { startLitePeer } from './lite-peer.js';
import { clientSuite } from './suite.js';

clientSuite('a2a-lite serve', () => startLitePeer(), 'JSONRPC', '1.0');
clientSuite('a2a-lite serve', () => startLitePeer(), 'HTTP+JSON', '1.0');
clientSuite('a2a-lite serve', () => startLitePeer({ grpc: true }), 'GRPC', '1.0');
clientSuite('a2a-lite serve', () => startLitePeer(), 'JSONRPC', '0.3');
clientSuite('a2a-lite serve with a bearer token', () => startLitePeer({ token: 'peer-token-0123456789', grpc: true }), 'GRPC', '1.0', 'peer-token-0123456789');
clientSuite('a2a-lite serve with a bearer token', () => startLitePeer({ token: 'peer-token-0123456789' }), 'JSONRPC', '1.0', 'peer-token-0123456789');

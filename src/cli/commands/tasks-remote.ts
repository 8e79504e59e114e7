// `a2a-lite tasks get|cancel ID`: a task sent to an A2A agent, asked about or cancelled there.

import { bindingOf, credentialFor, peerOf, transportFor } from '../../client/peer.js';
import { LiteError } from '../../errors.js';
import { atMost, parseOptions, required } from '../args.js';
import type { Context } from '../context.js';
import { RemoteOutput } from '../remote-output.js';
import { RemoteRecord } from '../../client/remote-record.js';
import { note } from '../output.js';
import { openStores } from '../stores.js';

export async function remote(action: 'get' | 'cancel', args: string[], context: Context): Promise<number> {
  const command = `tasks ${action}`;
  const { values, positionals } = parseOptions(command, args, { peer: { type: 'string' }, 'token-env': { type: 'string' }, transport: { type: 'string' } });
  atMost(command, positionals, 1);
  const id = required(command, positionals[0], 'ID');
  const stores = openStores(values, context);
  const record = stores.tasks.get(id, values.peer);
  if (record.role !== 'requester') {
    throw new LiteError('UNSUPPORTED_OPERATION', `task ${id} was sent to this agent by ${record.peer}; tasks ${action} is for tasks sent to A2A agents with a2a-lite send`, { task: id });
  }
  const peer = peerOf(stores.agents.get(record.peer));
  const transport = transportFor(peer, credentialFor(peer, context.env, values['token-env']), values.transport === undefined ? {} : { binding: bindingOf(values.transport) });
  const task = action === 'get' ? await transport.getTask(id) : await transport.cancelTask(id);
  const remote = new RemoteRecord(stores, peer.id, (text) => note(context, text));
  const output = new RemoteOutput(context, values.json === true);
  output.show({ kind: 'task', task }, remote.take({ kind: 'task', task }, task));
  output.finish(peer.id, task, remote.stateOf(task), remote.files);
  return output.exitCode(task, remote.stateOf(task));
}

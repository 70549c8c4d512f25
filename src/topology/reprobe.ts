import { postgresUrl } from './postgres';
import { httpStatus, postgresAnswers, tcpAnswers } from './probes';
import { isAlive, type Health, type PieceState, type TopologyState } from './state';
import { temporalAnswersOnce } from './temporal-probe';

/** One piece's health now, by what it is: its process alive, then its own probe. */
async function healthNow(piece: PieceState, state: TopologyState): Promise<Health> {
  if (!isAlive(piece.pid)) return 'down';
  if (piece.kind === 'postgres') return (await postgresAnswers(postgresUrl(piece.port, 'postgres'))) ? 'ok' : 'starting';
  if (piece.name === 'temporal') return (await temporalAnswersOnce(state.temporal_address)) ? 'ok' : 'starting';
  if (piece.name === 'temporal-ui') return (await httpStatus(`http://127.0.0.1:${piece.port}/`)) === 200 ? 'ok' : 'starting';
  if (piece.name.startsWith('api-')) return (await httpStatus(`http://127.0.0.1:${piece.port}/health`)) === 200 ? 'ok' : 'starting';
  if (piece.name === 'proxy') return (await httpStatus(`http://127.0.0.1:${piece.port}/health`)) > 0 ? 'ok' : 'starting';
  if (piece.name === 'fake-partner' || piece.name === 'fake-aggregator') return (await tcpAnswers(piece.port)) ? 'ok' : 'starting';
  // A worker has no port of its own to ask: alive, it keeps what the supervisor saw (its `ready`).
  return piece.health === 'down' ? 'starting' : piece.health;
}

/** The state with every piece's health probed now. */
export async function reprobe(state: TopologyState): Promise<TopologyState> {
  const pieces = await Promise.all(state.pieces.map(async (p) => ({ ...p, health: await healthNow(p, state).catch(() => 'starting' as const) })));
  return { ...state, supervisor: { ...state.supervisor, alive: isAlive(state.supervisor.pid) } as TopologyState['supervisor'], pieces };
}

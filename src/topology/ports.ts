/**
 * Every port of the topology (all below 32768: the Temporal server keeps membership ports in a
 * PostgreSQL SMALLINT). The public ones are `npm start`'s; TOPOLOGY_PORT_OFFSET (or the `portOffset`
 * option) moves them all at once, for a second topology beside the first (the integration test).
 */
export interface TopologyPorts {
  sandbox: number;
  live: number;
  web: number;
  temporal: number;
  temporalUi: number;
  /** The real server's other services: frontend HTTP, history, matching, worker, and their membership ports. */
  temporalHttp: number;
  temporalHistory: number;
  temporalMatching: number;
  temporalWorker: number;
  temporalMembership: { frontend: number; history: number; matching: number; worker: number };
  temporalMetrics: number;
  servicePostgres: number;
  temporalPostgres: number;
  fakePartner: number;
  /** The fake aggregator (issue 45), its own process as the fake partner is. */
  fakeAggregator: number;
  /** Each API process: sandbox, live, web and metrics listeners. */
  apis: Array<{ sandbox: number; live: number; web: number; metrics: number }>;
  /** Each worker process's metrics listener. */
  workerMetrics: number[];
  /** The links a chaos run partitions (TOPOLOGY_LINKS=1; src/topology/link.ts): the workers' way to the service's PostgreSQL, the APIs' way to Temporal. */
  links: { workerPostgres: number; apiTemporal: number };
}

export const MAX_PORT = 32767;

export function topologyPorts(offset = 0): TopologyPorts {
  const p = (port: number) => port + offset;
  const ports: TopologyPorts = {
    sandbox: p(3000),
    live: p(3001),
    web: p(3002),
    temporal: p(7233),
    temporalUi: p(8233),
    temporalHttp: p(7243),
    temporalHistory: p(7234),
    temporalMatching: p(7235),
    temporalWorker: p(7239),
    temporalMembership: { frontend: p(6933), history: p(6934), matching: p(6935), worker: p(6939) },
    temporalMetrics: p(3060),
    servicePostgres: p(3050),
    temporalPostgres: p(3051),
    fakePartner: p(3040),
    fakeAggregator: p(3041),
    apis: [
      { sandbox: p(3010), live: p(3011), web: p(3012), metrics: p(3019) },
      { sandbox: p(3020), live: p(3021), web: p(3022), metrics: p(3029) },
    ],
    workerMetrics: [p(3031), p(3032)],
    links: { workerPostgres: p(3052), apiTemporal: p(3053) },
  };
  const highest = Math.max(ports.temporalUi, ports.temporalHttp);
  if (offset < 0 || highest > MAX_PORT) throw new Error(`TOPOLOGY_PORT_OFFSET=${offset} puts ports outside 1..${MAX_PORT} (the highest would be ${highest}); use 0 to ${MAX_PORT - 8243}`);
  return ports;
}

/** Every port of the topology, for a "free before up" check. */
export function allPorts(ports: TopologyPorts, temporal: 'server' | 'dev'): number[] {
  const list = [ports.sandbox, ports.live, ports.web, ports.temporal, ports.temporalUi, ports.servicePostgres, ports.fakePartner, ports.fakeAggregator, ...ports.apis.flatMap((a) => [a.sandbox, a.live, a.web, a.metrics]), ...ports.workerMetrics, ports.links.workerPostgres, ports.links.apiTemporal];
  if (temporal === 'server') list.push(ports.temporalHttp, ports.temporalHistory, ports.temporalMatching, ports.temporalWorker, ...Object.values(ports.temporalMembership), ports.temporalMetrics, ports.temporalPostgres);
  return list;
}

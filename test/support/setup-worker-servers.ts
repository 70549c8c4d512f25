import { useWorkerServers } from './worker-servers';

useWorkerServers();

import type { Area } from '../area.js';
import { handlers } from './routes.js';

/** Discoveries: the receiving institutions of the rails table (`GET /discoveries`). */
export const discoveriesArea: Area = {
  name: 'discoveries',
  migrations: [],
  handlers,
};

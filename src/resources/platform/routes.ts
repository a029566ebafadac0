import type { OperationHandlers } from '../area.js';
import { jsonBody } from '../../server/validate.js';
import { platformService } from '../../tenancy/index.js';
import { platformConfigUpdate } from '../../tenancy/index.js';

/** Platform Configuration operations. */
export const handlers: OperationHandlers = {
  getPlatformConfig: (c) => c.json(platformService(c.get('ctx')).getConfig(c.get('platform'))),
  updatePlatformConfig: async (c) => {
    const update = await jsonBody(c, platformConfigUpdate);
    return c.json(platformService(c.get('ctx')).updateConfig(c.get('platform'), update));
  },
};

import type { Area } from '../area.js';
import { customerMigrations, customerPerfMigrations, customerShortKeyMigrations, customerKindIndexMigrations, customerCountMigrations, customerWireMigration, CUSTOMER_COUNTS } from './repo.js';
import { customerSearchIndexMigrations, customerSearchMigrations, customerSearchPerfMigrations } from './search.js';
import { handlers } from './routes.js';
import { registerImportJobs, removePlatformImports } from './bulk.js';
import { refillCustomerWires, removePlatformCustomers, wireOfRow } from './service.js';

export {
  assertCustomerCanMoveMoney,
  createCustomer,
  enrollVerifiedPhone,
  findCustomer,
  findCustomerByUmaAddress,
  getCustomer,
  getCustomerSubject,
  presentCustomer,
  setCustomerStatus,
  statusEventType,
  updateCustomer,
} from './service.js';
export type { ContactChannel, ContactState, CustomerRecord, CustomerSubject, CustomerType, EndUserTermsConsent, KycStatus } from './service.js';
export { country, customerCreate, customerUpdate, date } from './schemas.js';
export { getImportJob, presentImportJob } from './bulk.js';
export { searchCustomers, type CustomerSearchPage, type CustomerSearchQuery, type SearchKind } from './search.js';
export type { CustomerCreate, CustomerUpdate } from './schemas.js';
export { EU_COUNTRIES, isCountryCode } from './validation.js';
export { registerCustomerUpdateGuard, type CustomerUpdateChallenge, type CustomerUpdateGuard } from './guards.js';

/** Customers: CRUD, End User Terms and consent, contact verification, bulk CSV import. */
export const customersArea: Area = {
  name: 'customers',
  migrations: [...customerMigrations, customerWireMigration(wireOfRow), ...customerSearchMigrations, ...customerPerfMigrations, ...customerSearchPerfMigrations, ...customerShortKeyMigrations, ...customerSearchIndexMigrations, ...customerKindIndexMigrations, ...customerCountMigrations],
  handlers,
  init: registerImportJobs,
  resetPlatform: (ctx, platform) => {
    removePlatformImports(ctx, platform.id);
    removePlatformCustomers(ctx, platform.id);
  },
  // A customer's wire JSON is kept in its row for lists; snapshots carry the rows without it.
  derived: {
    columns: { customers: ['wire'] },
    // A snapshot import puts a platform's customers back as rows: their wires written, and counted (no trigger counts a restored row).
    refill: (ctx, platformId) => {
      refillCustomerWires(ctx, platformId);
      ctx.counts.recountPlatform(CUSTOMER_COUNTS, platformId);
    },
  },
};

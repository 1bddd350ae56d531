import type { Migration } from 'kysely';
import * as m001 from './001_foundation.ts';
import * as m002 from './002_events_jobs_clock.ts';
import * as m003 from './003_external_accounts.ts';
import * as m004 from './004_money_movement.ts';
import * as m005 from './005_webhooks.ts';
import * as m006 from './006_identity_documents.ts';
import * as m007 from './007_incoming_payments.ts';
import * as m008 from './008_server_settings.ts';
import * as m009 from './009_contract_fields.ts';
import * as m010 from './010_idempotency_expiry.ts';
import * as m011 from './011_delivery_not_in_envelope.ts';
import * as m012 from './012_operator_metrics.ts';
import * as m014 from './014_sandbox_snapshots.ts';
import * as m015 from './015_sandbox_request_log.ts';
import * as m017 from './017_list_indexes.ts';
import * as m019 from './019_dashboard_records.ts';
import * as m020 from './020_failed_deliveries.ts';
import * as m021 from './021_filter_indexes.ts';
import * as m022 from './022_quote_filter_indexes.ts';
import * as m023 from './023_quote_status_from_payment.ts';
import * as m024 from './024_rail_connectors.ts';
import * as m025 from './025_bank_files.ts';

/** One ordered migration set for both engines. Names sort in the order they apply. */
export const migrations: Record<string, Migration> = {
  '001_foundation': m001,
  '002_events_jobs_clock': m002,
  '003_external_accounts': m003,
  '004_money_movement': m004,
  '005_webhooks': m005,
  '006_identity_documents': m006,
  '007_incoming_payments': m007,
  '008_server_settings': m008,
  '009_contract_fields': m009,
  '010_idempotency_expiry': m010,
  '011_delivery_not_in_envelope': m011,
  '012_operator_metrics': m012,
  '014_sandbox_snapshots': m014,
  '015_sandbox_request_log': m015,
  '017_list_indexes': m017,
  '019_dashboard_records': m019,
  '020_failed_deliveries': m020,
  '021_filter_indexes': m021,
  '022_quote_filter_indexes': m022,
  '023_quote_status_from_payment': m023,
  '024_rail_connectors': m024,
  '025_bank_files': m025,
};

import { currency, type Currency } from './currencies.ts';
import { decodeCursor, encodeCursor, type Page, type SortOrder } from './paging.ts';

/**
 * The UMA providers this service knows. There is no provider directory to query, so the list is static:
 * the two sandbox domains (whose test receivers the lookup answers for) and fictional example providers
 * on the reserved `.example` domain, one per region, so filters and pages have something to show. One of
 * them is off the allow list, to exercise hasBlockedProviders. No LEI or logo is given: none is real.
 */
export interface UmaProvider {
  name: string;
  domain: string;
  supportedRegions: string[];
  supportedCurrencies: Currency[];
  allowListStatus: boolean;
}

function provider(
  name: string,
  domain: string,
  regions: string[],
  currencies: string[],
  allowListStatus = true,
): UmaProvider {
  return { name, domain, supportedRegions: regions, supportedCurrencies: currencies.map(currency), allowListStatus };
}

export const UMA_PROVIDERS: readonly UmaProvider[] = [
  provider('Sandbox UMA', 'sandbox.uma.money', ['US', 'MX', 'DE', 'FR', 'ES'], ['USD', 'EUR', 'MXN']),
  provider('Sandbox Grid UMA', 'sandbox.grid.uma.money', ['US', 'MX', 'DE', 'FR', 'ES'], ['USD', 'EUR', 'MXN']),
  provider('Example Pay Kenya', 'ke.uma.example', ['KE'], ['KES']),
  provider('Example Pay Nigeria', 'ng.uma.example', ['NG'], ['NGN']),
  provider('Example Remit India', 'in.uma.example', ['IN'], ['INR']),
  provider('Example Exchange Brazil', 'br.uma.example', ['BR'], ['BRL'], false),
];

export interface UmaProviderFilters {
  countryCode?: string | undefined;
  currencyCode?: string | undefined;
  /** false leaves out providers that are not on the allow list; absent or true keeps them. */
  hasBlockedProviders?: boolean | undefined;
}

/** Filters, orders by name (asc or desc) and pages the static list, in the shape of every other list. */
export function listUmaProviders(
  filters: UmaProviderFilters,
  page: { limit: number; cursor?: string | undefined; order: SortOrder },
): Page<UmaProvider> {
  const matching = UMA_PROVIDERS.filter(
    (p) =>
      (filters.countryCode === undefined || p.supportedRegions.includes(filters.countryCode.toUpperCase())) &&
      (filters.currencyCode === undefined ||
        p.supportedCurrencies.some((c) => c.code === filters.currencyCode!.toUpperCase())) &&
      (filters.hasBlockedProviders !== false || p.allowListStatus),
  ).sort((a, b) => (page.order === 'asc' ? a.name.localeCompare(b.name) : b.name.localeCompare(a.name)));
  let start = 0;
  if (page.cursor) {
    const { after } = decodeCursor(page.cursor, ['after']);
    start = matching.findIndex((p) =>
      page.order === 'asc' ? p.name.localeCompare(after) > 0 : p.name.localeCompare(after) < 0,
    );
    if (start < 0) start = matching.length;
  }
  const data = matching.slice(start, start + page.limit);
  const hasMore = start + page.limit < matching.length;
  const result: Page<UmaProvider> = { data, hasMore, totalCount: matching.length };
  if (hasMore) result.nextCursor = encodeCursor({ after: data[data.length - 1]!.name });
  return result;
}

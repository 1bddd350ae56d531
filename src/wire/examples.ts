// Values the OpenAPI examples share, so that an example quote, its transaction and its accounts point at
// each other the way real answers do.

/** Ids and times the examples share, so an example quote and its transaction point at each other. */
export const EXAMPLE = {
  customerId: 'Customer:019a2f4e-7c1d-7b3a-9f0e-5d8c6b4a3e21',
  internalAccountId: 'InternalAccount:019a2f4e-7c1d-7b3a-9f0e-5d8c6b4a3e22',
  externalAccountId: 'ExternalAccount:019a2f4e-7c1d-7b3a-9f0e-5d8c6b4a3e23',
  quoteId: 'Quote:019a2f4e-7c1d-7b3a-9f0e-5d8c6b4a3e24',
  transactionId: 'Transaction:019a2f4e-7c1d-7b3a-9f0e-5d8c6b4a3e25',
  createdAt: '2025-10-13T09:30:00.000Z',
  updatedAt: '2025-10-13T09:30:05.000Z',
} as const;

export const USD = { code: 'USD', name: 'US Dollar', symbol: '$', decimals: 2 };
export const MXN = { code: 'MXN', name: 'Mexican Peso', symbol: '$', decimals: 2 };

export const ADDRESS = {
  line1: '1 Main Street',
  city: 'San Francisco',
  state: 'CA',
  postalCode: '94105',
  country: 'US',
};

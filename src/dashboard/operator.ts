// The operator's actions in the dashboard (settling held payments, activating reviewed accounts) take the
// operator's own credential, OPERATOR_TOKEN, typed into the form: a platform's token alone never does them.
import { AppError } from '../domain/errors.ts';
import { sameSecret } from '../domain/secrets.ts';
import type { Services } from '../services/index.ts';
import { type Fields, requiredText } from './form.ts';

/** Whether the server has an operator credential at all (the forms are shown only then). */
export const operatorEnabled = (services: Services): boolean => Boolean(services.ctx.config.operatorToken);

/** Refuses the form unless it carries the operator token: 403 when there is none, 401 when it is wrong. */
export function requireOperator(services: Services, form: Fields): void {
  const expected = services.ctx.config.operatorToken;
  if (!expected) throw new AppError('FORBIDDEN', 'Operator actions are off: the server has no OPERATOR_TOKEN');
  const given = requiredText(form, 'operatorToken', 300);
  if (!sameSecret(given, expected)) throw new AppError('UNAUTHORIZED', 'That is not the operator token');
}

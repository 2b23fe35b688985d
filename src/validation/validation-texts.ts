import type { Locale } from '../core/locale.js';
import type { ValidationTexts } from './issue-parts.js';
import { englishTexts } from './texts-en.js';
import { chineseTexts } from './texts-zh-cn.js';

/**
 * The texts of a locale.
 *
 * @example
 * validationTexts('zh-CN').header({ toolName: 'apply_refund', count: 2, subject: 'arguments' });
 */
export function validationTexts(locale: Locale): ValidationTexts {
  return locale === 'zh-CN' ? chineseTexts : englishTexts;
}

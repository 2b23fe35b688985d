/** A language for model-facing and progress texts. */
export type Locale = 'en' | 'zh-CN';

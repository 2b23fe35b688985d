/**
 * The part of the optional `node-llama-cpp` runtime (3.21.x) that arbiter
 * uses, declared here so that arbiter type-checks and builds without the
 * package installed; `loadLocalRuntime` imports the package at run time and
 * hands it on under this type. Nothing else of the package is used.
 *
 * @example
 * const { runtime, model } = await loadLocalRuntime({ file }); // runtime: LocalRuntime
 * const wrapper = runtime.resolveChatWrapper(model);
 */
export interface LocalRuntime {
  getLlama(options: { gpu: false; build: 'never'; logLevel: 'error' }): Promise<LocalLlama>;
  resolveChatWrapper(model: LocalLlamaModel): LocalChatWrapper;
  readonly LlamaCompletion: new (options: { contextSequence: LocalContextSequence }) => LocalCompletion;
  /** Template text from parts: strings as text, template parts (special tokens) as they are. */
  LlamaText(values: readonly unknown[]): LocalTemplateText;
}

/** A token id of the model's vocabulary. */
export type LocalToken = number;

export interface LocalLlama {
  loadModel(options: { modelPath: string }): Promise<LocalLlamaModel>;
}

export interface LocalLlamaModel {
  /** Opaque: handed back to `tokenize`. */
  readonly tokenizer: unknown;
  createContext(options: { contextSize: number; threads: number; sequences: number }): Promise<LocalContext>;
}

export interface LocalContext {
  getSequence(): LocalContextSequence;
}

export interface LocalContextSequence {
  /** The tokens whose evaluation the sequence holds (a prompt sharing a prefix with them reuses it). */
  readonly contextTokens: readonly LocalToken[];
}

export interface LocalCompletionOptions {
  maxTokens: number;
  temperature: number;
  seed: number;
  repeatPenalty: false;
  customStopTriggers: readonly unknown[];
  onTextChunk: (text: string) => void;
  onToken: (tokens: readonly LocalToken[]) => void;
  signal: AbortSignal;
  stopOnAbortSignal: true;
}

export interface LocalCompletion {
  generateCompletionWithMeta(
    input: LocalToken[],
    options: LocalCompletionOptions,
  ): Promise<{ response: string; metadata: { stopReason: string } }>;
}

/** One call in the chat history, with what the tool answered. */
export interface LocalFunctionCall {
  type: 'functionCall';
  name: string;
  params: unknown;
  result: unknown;
  /** True for the first call of a new call section: the template renders it after the results of the ones before. */
  startsNewChunk?: boolean;
}

export type LocalChatHistoryItem =
  | { type: 'system'; text: string }
  | { type: 'user'; text: string }
  | { type: 'model'; response: (string | LocalFunctionCall)[] };

/** The tools as the chat template lists them. */
export type LocalChatFunctions = Record<string, { description?: string; params?: Readonly<Record<string, unknown>> }>;

/** Text with special tokens in it, as a template writes a call's prefix; `String()` gives it as text. */
export type LocalTemplateText = unknown;

export interface LocalChatWrapper {
  /** The template family: `Qwen`, `Llama 3.1`, `ChatML`, … */
  readonly wrapperName: string;
  readonly settings: {
    readonly functions: {
      readonly call: {
        readonly prefix: LocalTemplateText;
        readonly paramsPrefix: LocalTemplateText;
        readonly suffix: LocalTemplateText;
      };
      /** What the template writes before and after a tool's result. */
      readonly result: {
        readonly prefix: LocalTemplateText;
        readonly suffix: LocalTemplateText;
      };
    };
  };
  /** A tool's result as the template writes it (replaceable: `toolResultsAsText`). */
  generateFunctionCallResult(name: string, params: unknown, result: unknown): LocalTemplateText;
  generateContextState(options: {
    chatHistory: LocalChatHistoryItem[];
    availableFunctions?: LocalChatFunctions;
    documentFunctionParams?: boolean;
  }): LocalContextState;
}

export interface LocalContextState {
  readonly contextText: { tokenize(tokenizer: unknown): LocalToken[] };
  readonly stopGenerationTriggers: readonly unknown[];
}

// arbiter's chat page: plain JavaScript, no framework, no build step.
//
// Everything on screen is drawn from `state`, which is saved to
// sessionStorage after every event together with the seq of that event. A
// reload therefore redraws exactly what was shown and reconnects with
// `Last-Event-ID: lastSeq`: nothing is shown twice, nothing is missed.
// Earlier runs of the session are redrawn from `GET /v1/sessions/:id`.
//
// A run resumed after a crash sends `run:start` again and streams the
// interrupted step again, under the same run id and step number (its seqs
// carry on). Each `run:start` therefore opens a new attempt, and a step's
// text or a tool call's progress line streamed again in a later attempt
// replaces what the earlier attempt showed instead of adding to it.

import { describeField, formatDateTime, humanize } from './field-format.js';

const storageKey = 'arbiter-chat';
const tokenKey = 'arbiter-token';

const texts = {
  en: {
    title: 'Shop assistant',
    newChat: 'New chat',
    send: 'Send',
    placeholder: 'Ask about an order or a refund…',
    hint: 'Try: "Where is my order SO20260901?" or "My teapot arrived cracked, I want a refund."',
    tokenLabel: 'Access token',
    tokenSave: 'Use token',
    languageButton: '中文',
    approvalTitle: 'Approval needed',
    approvalIntro: 'The assistant wants to',
    approve: 'Approve',
    reject: 'Reject',
    approvalWaiting: 'Waiting for a member of staff to approve…',
    approvalExpires: (time) => `If nobody approves it by ${time}, it will not be done.`,
    demoShortcut:
      "Demo shortcut: here you may decide it yourself. In a real shop a member of staff decides on the approver's desk (/desk), and a customer sees no buttons.",
    approved: 'Approved',
    rejected: 'Rejected',
    denied: 'Not approved',
    sending: 'Sending…',
    connectionLost: 'Connection lost. Reconnecting…',
    connected: 'Live',
    busy: 'The assistant is still working on your previous message.',
    failed: 'Something went wrong. Please try again.',
    stopped: {
      max_steps: 'The assistant stopped before finishing. Please rephrase or ask again.',
      token_budget: 'The assistant stopped before finishing. Please rephrase or ask again.',
      cost_budget: 'The assistant stopped before finishing. Please rephrase or ask again.',
      deadline: 'The assistant took too long and stopped.',
      repeated_call: 'The assistant got stuck and stopped.',
      tool_failures: 'A member of staff will take over this conversation.',
      aborted: 'The request was cancelled.',
      error: 'Something went wrong. Please try again.',
    },
  },
  'zh-CN': {
    title: '店铺客服',
    newChat: '新对话',
    send: '发送',
    placeholder: '询问订单或退款…',
    hint: '试试：“我的订单 SO20260901 到哪了？” 或 “茶壶到货时碎了，我要退款。”',
    tokenLabel: '访问令牌',
    tokenSave: '使用令牌',
    languageButton: 'English',
    approvalTitle: '需要审批',
    approvalIntro: '助手准备执行',
    approve: '批准',
    reject: '拒绝',
    approvalWaiting: '正在等待工作人员审批…',
    approvalExpires: (time) => `如在 ${time} 前无人审批，将不会执行。`,
    demoShortcut:
      '演示快捷方式：在这里您可以自己决定。实际使用时由工作人员在审批工作台（/desk）决定，顾客看不到这些按钮。',
    approved: '已批准',
    rejected: '已拒绝',
    denied: '未获批准',
    sending: '提交中…',
    connectionLost: '连接中断，正在重连…',
    connected: '已连接',
    busy: '助手还在处理你上一条消息。',
    failed: '出了点问题，请再试一次。',
    stopped: {
      max_steps: '助手没能完成，请换个说法再试。',
      token_budget: '助手没能完成，请换个说法再试。',
      cost_budget: '助手没能完成，请换个说法再试。',
      deadline: '助手处理超时，已停止。',
      repeated_call: '助手卡住了，已停止。',
      tool_failures: '将由工作人员接手这段对话。',
      aborted: '请求已取消。',
      error: '出了点问题，请再试一次。',
    },
  },
};

const elements = {
  transcript: document.getElementById('transcript'),
  typing: document.getElementById('typing'),
  composer: document.getElementById('composer'),
  message: document.getElementById('message'),
  send: document.getElementById('send'),
  language: document.getElementById('language'),
  newChat: document.getElementById('new-chat'),
  connection: document.getElementById('connection'),
  tokenPanel: document.getElementById('token-panel'),
  tokenInput: document.getElementById('token-input'),
  tokenSave: document.getElementById('token-save'),
};

/** What the page shows; `current` is saved after every event. */
const state = {
  lang: initialLanguage(),
  sessionId: undefined,
  /** Items of earlier runs, from the session's messages. */
  history: [],
  /** The latest run: { runId, lastSeq, attempt, items, typing, waiting, done }; `attempt` counts its `run:start`s. */
  current: undefined,
  connection: 'idle',
};

/** `demo`: the tokens came from /demo.json, and the buttons on the card are the demo's shortcut. */
const auth = { token: undefined, approverToken: undefined, demo: false };
let stream;
let nextItemId = 0;

function initialLanguage() {
  const requested = new URLSearchParams(location.search).get('lang');
  if (requested === 'zh-CN' || requested === 'zh') return 'zh-CN';
  if (requested === 'en') return 'en';
  const saved = readSaved();
  return saved?.lang === 'zh-CN' ? 'zh-CN' : 'en';
}

function t() {
  return texts[state.lang];
}

function readSaved() {
  try {
    return JSON.parse(sessionStorage.getItem(storageKey) ?? 'null');
  } catch {
    return null;
  }
}

function save() {
  sessionStorage.setItem(
    storageKey,
    JSON.stringify({ lang: state.lang, sessionId: state.sessionId, current: state.current, nextItemId }),
  );
}

function newId() {
  nextItemId += 1;
  return `item-${nextItemId}`;
}

async function api(path, { method = 'GET', body, token = auth.token } = {}) {
  const response = await fetch(path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const payload = await response.json().catch(() => ({}));
  return { status: response.status, body: payload };
}

// ---- events ---------------------------------------------------------------

function applyEvent(event) {
  const current = state.current;
  if (current === undefined || event.runId !== current.runId || event.seq <= current.lastSeq) return;
  current.lastSeq = event.seq;
  const items = current.items;
  switch (event.type) {
    case 'run:start':
      current.attempt = (current.attempt ?? 0) + 1;
      current.typing = true;
      current.waiting = false;
      break;
    case 'model:delta': {
      const answer = items.findLast((item) => item.kind === 'assistant' && item.step === event.step);
      if (answer === undefined) {
        items.push({ id: newId(), kind: 'assistant', step: event.step, attempt: current.attempt, text: event.text });
      } else if (answer.attempt === current.attempt) {
        answer.text += event.text;
      } else {
        answer.attempt = current.attempt;
        answer.text = event.text;
      }
      current.typing = false;
      break;
    }
    case 'model:end':
      current.typing = event.toolCalls > 0;
      break;
    case 'tool:start': {
      const progress = items.find((item) => item.kind === 'progress' && item.toolCallId === event.toolCallId);
      if (progress === undefined) {
        items.push({
          id: newId(),
          kind: 'progress',
          toolCallId: event.toolCallId,
          text: event.text,
          status: 'running',
        });
      } else {
        progress.text = event.text;
        progress.status = 'running';
      }
      current.typing = false;
      break;
    }
    case 'tool:end':
    case 'tool:error': {
      const progress = items.find((item) => item.kind === 'progress' && item.toolCallId === event.toolCallId);
      if (progress !== undefined) progress.status = event.type === 'tool:end' ? 'done' : 'failed';
      current.typing = true;
      break;
    }
    case 'approval:required':
      items.push({
        id: newId(),
        kind: 'approval',
        approvalId: event.approvalId,
        tool: event.tool,
        arguments: event.arguments,
        display: event.display,
        reason: event.reason,
        expiresAt: event.expiresAt,
        status: 'pending',
      });
      current.typing = false;
      break;
    case 'approval:resolved': {
      const card = items.find((item) => item.kind === 'approval' && item.approvalId === event.approvalId);
      if (card !== undefined) card.status = event.status;
      break;
    }
    case 'run:end':
      current.typing = false;
      if (event.stopReason === 'awaiting_approval') {
        current.waiting = true;
      } else {
        current.done = true;
        const stopped = t().stopped[event.stopReason];
        if (stopped !== undefined) items.push({ id: newId(), kind: 'notice', text: stopped });
      }
      break;
    case 'run:error':
      current.typing = false;
      current.done = true;
      items.push({ id: newId(), kind: 'notice', text: event.text ?? t().failed });
      break;
    default:
      break;
  }
  save();
  render();
}

/** Follows the current run's stream until it is done, reconnecting with Last-Event-ID. */
function follow() {
  stream?.abort();
  const current = state.current;
  if (current === undefined || current.done) return;
  const controller = new AbortController();
  stream = controller;
  let failures = 0;

  const run = async () => {
    while (!controller.signal.aborted && !current.done) {
      const outcome = await readStream(current, controller.signal);
      if (controller.signal.aborted || current.done) break;
      if (outcome === 'lost') {
        failures += 1;
        current.typing = false;
        setConnection('lost');
        render();
        await sleep(Math.min(10_000, 500 * 2 ** failures), controller.signal);
      } else {
        failures = 0;
      }
    }
    if (stream === controller) setConnection('idle');
  };
  run().catch(() => {});
}

/** One connection. 'ended' when the server closed it after a terminal event, 'lost' otherwise. */
async function readStream(current, signal) {
  const connection = new AbortController();
  const abort = () => connection.abort();
  signal.addEventListener('abort', abort, { once: true });
  let interval = 15_000;
  let watchdog;
  let lost = false;
  const arm = () => {
    clearTimeout(watchdog);
    watchdog = setTimeout(() => {
      lost = true;
      connection.abort();
    }, interval * 2.5);
  };
  try {
    const response = await fetch(`/v1/runs/${current.runId}/events`, {
      headers: { authorization: `Bearer ${auth.token}`, 'last-event-id': String(current.lastSeq) },
      signal: connection.signal,
    });
    if (response.status === 404) {
      current.done = true;
      return 'ended';
    }
    if (!response.ok || response.body === null) return 'lost';
    setConnection('live');
    arm();
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    let data = [];
    let terminal = false;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      arm();
      buffer += decoder.decode(value, { stream: true });
      let newline = buffer.indexOf('\n');
      while (newline >= 0) {
        const line = buffer.slice(0, newline).replace(/\r$/, '');
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf('\n');
        if (line === '') {
          if (data.length > 0) {
            const event = JSON.parse(data.join('\n'));
            applyEvent(event);
            if (event.type === 'run:end' || event.type === 'run:error') terminal = true;
          }
          data = [];
        } else if (line.startsWith(':')) {
          const announced = /interval=(\d+)/.exec(line);
          if (announced !== null) {
            interval = Number(announced[1]);
            arm();
          }
        } else if (line.startsWith('data:')) {
          data.push(line.slice(5).replace(/^ /, ''));
        }
      }
    }
    return terminal || current.done ? 'ended' : 'lost';
  } catch {
    return lost || !signal.aborted ? 'lost' : 'ended';
  } finally {
    clearTimeout(watchdog);
    signal.removeEventListener('abort', abort);
  }
}

function sleep(milliseconds, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, milliseconds);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

// ---- actions --------------------------------------------------------------

async function sendMessage(content) {
  if (state.current !== undefined && !state.current.done) {
    pushNotice(t().busy);
    return;
  }
  if (state.sessionId === undefined) {
    const created = await api('/v1/sessions', { method: 'POST', body: { locale: state.lang } });
    if (created.status !== 201) {
      pushNotice(t().failed);
      return;
    }
    state.sessionId = created.body.id;
  }
  const sent = await api(`/v1/sessions/${state.sessionId}/messages`, {
    method: 'POST',
    body: { content, locale: state.lang },
  });
  if (sent.status === 409) {
    pushNotice(t().busy);
    return;
  }
  if (sent.status !== 202) {
    pushNotice(t().failed);
    return;
  }
  if (state.current !== undefined) state.history.push(...state.current.items);
  state.current = {
    runId: sent.body.runId,
    lastSeq: 0,
    items: [{ id: newId(), kind: 'user', text: content }],
    typing: true,
    waiting: false,
    done: false,
  };
  save();
  render();
  follow();
}

async function decide(card, decision) {
  card.status = 'sending';
  render();
  const token = auth.approverToken ?? auth.token;
  const result = await api(`/v1/approvals/${card.approvalId}`, { method: 'POST', body: { decision }, token });
  if (result.status === 202) {
    card.status = result.body.decision;
  } else if (result.status === 409) {
    card.status = result.body.error?.status ?? 'denied';
  } else {
    card.status = 'pending';
    pushNotice(t().failed);
  }
  save();
  render();
}

function pushNotice(text) {
  const target = state.current?.items ?? state.history;
  target.push({ id: newId(), kind: 'notice', text });
  save();
  render();
}

function startOver() {
  stream?.abort();
  state.sessionId = undefined;
  state.history = [];
  state.current = undefined;
  save();
  render();
}

// ---- drawing --------------------------------------------------------------

const nodes = new Map();

function render() {
  const strings = t();
  document.documentElement.lang = state.lang;
  for (const element of document.querySelectorAll('[data-text]')) {
    const value = strings[element.dataset.text];
    if (typeof value === 'string') element.textContent = value;
  }
  elements.message.placeholder = strings.placeholder;
  elements.language.textContent = strings.languageButton;
  elements.connection.dataset.state = state.connection;
  elements.connection.textContent =
    state.connection === 'lost' ? strings.connectionLost : state.connection === 'live' ? strings.connected : '';

  const items = [...state.history, ...(state.current?.items ?? [])];
  const wanted = new Set(items.map((item) => item.id));
  for (const [id, node] of nodes) {
    if (!wanted.has(id)) {
      node.remove();
      nodes.delete(id);
    }
  }
  let previous;
  for (const item of items) {
    let node = nodes.get(item.id);
    if (node === undefined || node.dataset.kind !== item.kind) {
      node?.remove();
      node = document.createElement('li');
      node.dataset.kind = item.kind;
      nodes.set(item.id, node);
    }
    draw(node, item);
    const expected = previous === undefined ? elements.transcript.firstChild : previous.nextSibling;
    if (expected !== node) elements.transcript.insertBefore(node, expected);
    previous = node;
  }

  const current = state.current;
  elements.typing.hidden = !(current?.typing === true && !current.done);
  elements.send.disabled = current !== undefined && !current.done;
  elements.typing.scrollIntoView?.({ block: 'nearest' });
}

function draw(node, item) {
  switch (item.kind) {
    case 'user':
    case 'assistant':
      node.className = 'bubble';
      node.dataset.role = item.kind;
      if (node.textContent !== item.text) node.textContent = item.text;
      break;
    case 'progress':
      node.className = 'progress';
      node.dataset.role = 'progress';
      node.dataset.status = item.status;
      node.textContent = item.text;
      break;
    case 'notice':
      node.className = 'notice';
      node.dataset.role = 'notice';
      node.textContent = item.text;
      break;
    case 'approval':
      drawApproval(node, item);
      break;
    default:
      break;
  }
}

function drawApproval(node, card) {
  const strings = t();
  const signature = JSON.stringify([card.status, state.lang, Boolean(auth.approverToken)]);
  if (node.dataset.signature === signature) return;
  node.dataset.signature = signature;
  node.className = 'approval';
  node.dataset.role = 'approval';
  node.dataset.status = card.status;
  node.replaceChildren();

  const title = document.createElement('h3');
  title.textContent = strings.approvalTitle;
  const intro = document.createElement('p');
  intro.textContent = `${strings.approvalIntro}: ${humanize(card.tool)}`;
  const why = document.createElement('p');
  why.className = 'approval-reason';
  why.textContent = card.reason ?? '';
  const details = document.createElement('dl');
  for (const [field, value] of Object.entries(card.arguments ?? {})) {
    const { label, shown } = describeArgument(field, value, card.display?.[field]);
    const term = document.createElement('dt');
    term.textContent = label;
    const description = document.createElement('dd');
    description.textContent = shown;
    details.append(term, description);
  }
  const actions = document.createElement('div');
  actions.className = 'approval-actions';
  if (card.status === 'pending' || card.status === 'sending') {
    if (auth.approverToken !== undefined) {
      for (const decision of ['approve', 'reject']) {
        const button = document.createElement('button');
        button.type = 'button';
        button.dataset.decision = decision;
        button.textContent = strings[decision];
        button.disabled = card.status === 'sending';
        button.addEventListener('click', () => decide(card, decision));
        actions.append(button);
      }
    }
    if (card.status === 'sending' || auth.approverToken === undefined) {
      const status = document.createElement('span');
      status.className = 'approval-status';
      status.textContent = card.status === 'sending' ? strings.sending : strings.approvalWaiting;
      actions.append(status);
    }
  } else {
    const status = document.createElement('span');
    status.className = 'approval-status';
    status.textContent = strings[card.status] ?? card.status;
    actions.append(status);
  }
  node.append(title, intro, why, details);
  if (card.expiresAt !== undefined && (card.status === 'pending' || card.status === 'sending')) {
    const expiry = document.createElement('p');
    expiry.className = 'approval-expiry';
    expiry.textContent = strings.approvalExpires(formatDateTime(card.expiresAt, state.lang));
    node.append(expiry);
  }
  node.append(actions);
  if (auth.demo && auth.approverToken !== undefined && (card.status === 'pending' || card.status === 'sending')) {
    const shortcut = document.createElement('p');
    shortcut.className = 'approval-demo';
    shortcut.dataset.role = 'demo-shortcut';
    shortcut.textContent = strings.demoShortcut;
    node.append(shortcut);
  }
}

/** `amount_cents: 20000` reads as "Amount: 200.00 CNY" where the tool says it is yuan; `order_id` as "Order id". */
function describeArgument(field, value, display) {
  const described = describeField({ field, value, display, lang: state.lang });
  return typeof value === 'string' && display === undefined
    ? { label: described.label, shown: humanizeValue(value) }
    : described;
}

function humanizeValue(value) {
  return /^[a-z]+(_[a-z]+)+$/.test(value) ? value.replaceAll('_', ' ') : value;
}

function setConnection(connection) {
  state.connection = connection;
  render();
}

// ---- start ----------------------------------------------------------------

async function signIn() {
  const demo = await fetch('/demo.json').catch(() => undefined);
  if (demo?.ok) {
    const tokens = await demo.json();
    auth.token = tokens.customerToken;
    // The demo page decides approvals with the demo approver's token, so one
    // person can play both roles; with a real auth file only an approver's
    // own token shows the buttons.
    auth.approverToken = tokens.approverToken;
    auth.demo = true;
    return true;
  }
  const saved = localStorage.getItem(tokenKey);
  if (saved === null) {
    elements.tokenPanel.hidden = false;
    return false;
  }
  auth.token = saved;
  const me = await api('/v1/me');
  if (me.status !== 200) {
    localStorage.removeItem(tokenKey);
    elements.tokenPanel.hidden = false;
    return false;
  }
  if (me.body.roles?.includes('approver')) auth.approverToken = saved;
  return true;
}

async function restore() {
  const saved = readSaved();
  if (saved?.sessionId === undefined) return;
  nextItemId = saved.nextItemId ?? 0;
  const session = await api(`/v1/sessions/${saved.sessionId}`);
  if (session.status !== 200) {
    save();
    return;
  }
  state.sessionId = saved.sessionId;
  const currentRunId = saved.current?.runId;
  state.history = session.body.messages
    .filter((message) => currentRunId === undefined || message.runId !== currentRunId)
    .map((message) => ({ id: newId(), kind: message.role, text: message.content }));
  state.current = saved.current ?? undefined;
  save();
}

async function start() {
  render();
  elements.composer.addEventListener('submit', (event) => {
    event.preventDefault();
    const content = elements.message.value.trim();
    if (content === '') return;
    elements.message.value = '';
    sendMessage(content);
  });
  elements.message.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      elements.composer.requestSubmit();
    }
  });
  elements.language.addEventListener('click', () => {
    state.lang = state.lang === 'en' ? 'zh-CN' : 'en';
    const url = new URL(location.href);
    url.searchParams.set('lang', state.lang);
    history.replaceState(null, '', url);
    save();
    render();
  });
  elements.newChat.addEventListener('click', startOver);
  elements.tokenSave.addEventListener('click', async () => {
    localStorage.setItem(tokenKey, elements.tokenInput.value.trim());
    if (await signIn()) {
      elements.tokenPanel.hidden = true;
      await restore();
      render();
      follow();
    }
  });

  if (!(await signIn())) return;
  await restore();
  render();
  follow();
  document.body.dataset.ready = 'true';
}

start();

// The approver's desk: the tenant's pending approvals (live), a run's
// timeline, the audit. Plain JavaScript, no build step; every text that
// comes from the server (tool arguments, reasons, ids) is set as text,
// never as markup.

import { describeField, formatDateTime, humanize as humanizeIn } from './field-format.js';

const tokenKey = 'arbiter-desk-token';
const languageKey = 'arbiter-desk-lang';

const texts = {
  en: {
    title: "Approver's desk",
    skip: 'Skip to content',
    inbox: 'Inbox',
    audit: 'Audit',
    tokenLabel: 'Access token',
    tokenSave: 'Use token',
    tokenRefused: 'This token was not accepted.',
    live: 'Live',
    reconnecting: 'Reconnecting…',
    signedInAs: (user, tenant) => `${user} · ${tenant}`,
    inboxTitle: 'Waiting for a decision',
    inboxEmpty: 'Nothing is waiting for you.',
    selectAll: 'Select all',
    approveSelected: 'Approve selected',
    rejectSelected: 'Reject selected',
    reasonLabel: 'Reason (shown in the record)',
    bulkReasonLabel: 'Reason for the selected',
    approve: 'Approve',
    reject: 'Reject',
    select: (tool) => `Select ${tool}`,
    askedBy: (user, time) => `Asked by ${user} at ${time}`,
    rule: 'Rule',
    why: 'Why',
    timeLeft: (left) => `${left} left to decide`,
    expired: 'Expired: it can no longer be approved',
    fourEyes: 'You asked for this yourself: under the four-eyes rule another approver must decide it.',
    timeline: 'Timeline',
    session: 'Conversation',
    decided: { approved: 'Approved', rejected: 'Rejected' },
    failures: {
      self_approval: 'Refused: you asked for this yourself; another approver must decide it (four eyes).',
      approval_expired: 'Refused: the approval has expired.',
      already_decided: 'Someone else has decided it already.',
      not_found: 'It is no longer there.',
      forbidden: 'You may not decide approvals.',
    },
    failed: 'The decision was not recorded.',
    runTitle: 'Run',
    runStatus: 'Status',
    requestedBy: 'Requested by',
    following: 'Following the run live',
    step: (n) => `step ${n}`,
    modelCall: 'Model call',
    tokens: (input, output) => `${input} in · ${output} out tokens`,
    ms: (ms) => `${Math.round(ms)} ms`,
    proposedCalls: (n) => (n === 1 ? '1 tool call proposed' : `${n} tool calls proposed`),
    validation: {
      passed: 'arguments valid',
      failed: 'arguments invalid: returned to the model',
      not_reached: 'not validated',
    },
    gate: 'Gate',
    approval: 'Approval',
    approvedBy: (status, who) => (who === null ? status : `${status} by ${who}`),
    result: { ok: 'done', error: 'failed', pending: 'waiting for a person', running: 'running' },
    replayed: 'replayed: nothing ran again',
    replayedOf: 'This call had already run: the answer of the first call was given back, nothing ran again.',
    replayedOutcome: (outcome, row, runId) =>
      row === null
        ? `replayed (${outcome}): already ran in run ${runId}`
        : `replayed (${outcome}): already ran, row ${row}`,
    earlierCall: (time) => `This call already ran on ${time}, with the same arguments.`,
    earlierReplays: 'Approving it runs nothing again: the same answer is given back.',
    earlierRunsAgain: 'This tool has no idempotency key: approving it runs it a second time.',
    earlierRun: 'The run where it ran',
    answered: 'It answered',
    replayAnswered: 'Given back (the first call’s answer)',
    approverReason: (reason) => `Approver's reason: ${reason}`,
    runStart: 'Run started',
    runEnd: (reason) => `Run ended: ${reason}`,
    runError: (code) => `Run failed: ${code}`,
    cost: (cost) => `cost ${cost}`,
    sessionTitle: 'Conversation',
    runs: 'Runs',
    auditTitle: 'Audit',
    filterTool: 'Tool',
    filterOutcome: 'Outcome',
    filterUser: 'User',
    filterFrom: 'From',
    filterTo: 'To',
    filterApply: 'Filter',
    export: 'Export (NDJSON)',
    chainVerified: (rows) => `Chain verified (${rows} rows checked)`,
    chainBroken: (id) => `Chain broken at row ${id}`,
    chainKinds: {
      changed: 'the row was changed after it was written',
      inserted: 'the row was not written by the audit log',
      deleted: 'rows before it are missing',
      checkpoint: 'a purge checkpoint is not signed',
    },
    columns: ['Row', 'Time', 'Tool', 'Arguments', 'User', 'Decision', 'Rule', 'Approver', 'Outcome'],
    noRows: 'No rows match.',
    notAllowed: 'Your role does not open this part of the desk.',
    notFound: 'Not found.',
  },
  'zh-CN': {
    title: '审批工作台',
    skip: '跳到正文',
    inbox: '待审批',
    audit: '审计',
    tokenLabel: '访问令牌',
    tokenSave: '使用令牌',
    tokenRefused: '令牌无效。',
    live: '实时',
    reconnecting: '正在重新连接…',
    signedInAs: (user, tenant) => `${user} · ${tenant}`,
    inboxTitle: '等待决定',
    inboxEmpty: '暂无待审批事项。',
    selectAll: '全选',
    approveSelected: '批准所选',
    rejectSelected: '拒绝所选',
    reasonLabel: '理由（记入记录）',
    bulkReasonLabel: '所选事项的理由',
    approve: '批准',
    reject: '拒绝',
    select: (tool) => `选择 ${tool}`,
    askedBy: (user, time) => `${user} 于 ${time} 提出`,
    rule: '规则',
    why: '原因',
    timeLeft: (left) => `剩余 ${left} 可决定`,
    expired: '已过期：不能再批准',
    fourEyes: '这是您本人提出的请求：按照四眼原则，须由另一位审批人决定。',
    timeline: '时间线',
    session: '对话',
    decided: { approved: '已批准', rejected: '已拒绝' },
    failures: {
      self_approval: '被拒绝：这是您本人提出的请求，须由另一位审批人决定（四眼原则）。',
      approval_expired: '被拒绝：该审批已过期。',
      already_decided: '已由他人决定。',
      not_found: '该事项已不存在。',
      forbidden: '您无权审批。',
    },
    failed: '决定未能记录。',
    runTitle: '运行',
    runStatus: '状态',
    requestedBy: '请求人',
    following: '正在实时跟踪该运行',
    step: (n) => `第 ${n} 步`,
    modelCall: '模型调用',
    tokens: (input, output) => `输入 ${input} · 输出 ${output} 个令牌`,
    ms: (ms) => `${Math.round(ms)} 毫秒`,
    proposedCalls: (n) => `提出 ${n} 个工具调用`,
    validation: { passed: '参数有效', failed: '参数无效：已退回模型', not_reached: '未校验' },
    gate: '闸门',
    approval: '审批',
    approvedBy: (status, who) => (who === null ? status : `${status}（${who}）`),
    result: { ok: '完成', error: '失败', pending: '等待人工审批', running: '执行中' },
    replayed: '重放：未再次执行',
    replayedOf: '该调用之前已执行过：返回的是第一次调用的答复，没有再次执行。',
    replayedOutcome: (outcome, row, runId) =>
      row === null ? `重放（${outcome}）：已在运行 ${runId} 中执行过` : `重放（${outcome}）：已执行过，第 ${row} 行`,
    earlierCall: (time) => `相同参数的调用已于 ${time} 执行过。`,
    earlierReplays: '批准后不会再次执行：返回的是同一个答复。',
    earlierRunsAgain: '该工具没有幂等键：批准后会再执行一次。',
    earlierRun: '执行它的那次运行',
    answered: '当时的答复',
    replayAnswered: '返回的答复（第一次调用的）',
    approverReason: (reason) => `审批理由：${reason}`,
    runStart: '运行开始',
    runEnd: (reason) => `运行结束：${reason}`,
    runError: (code) => `运行失败：${code}`,
    cost: (cost) => `费用 ${cost}`,
    sessionTitle: '对话',
    runs: '运行',
    auditTitle: '审计',
    filterTool: '工具',
    filterOutcome: '结果',
    filterUser: '用户',
    filterFrom: '起',
    filterTo: '止',
    filterApply: '筛选',
    export: '导出（NDJSON）',
    chainVerified: (rows) => `哈希链已验证（检查了 ${rows} 行）`,
    chainBroken: (id) => `哈希链在第 ${id} 行断开`,
    chainKinds: {
      changed: '该行写入后被修改过',
      inserted: '该行不是由审计日志写入的',
      deleted: '它之前的记录缺失',
      checkpoint: '清理检查点未签名',
    },
    columns: ['行', '时间', '工具', '参数', '用户', '决定', '规则', '审批人', '结果'],
    noRows: '没有匹配的记录。',
    notAllowed: '您的角色不能打开这一部分。',
    notFound: '未找到。',
  },
};

const state = {
  lang: initialLanguage(),
  token: undefined,
  me: undefined,
  inbox: { items: [], offset: 0, connected: false },
  selected: new Set(),
  /** approvalId → { kind: 'ok' | 'error', text } */
  notes: new Map(),
  route: undefined,
  view: undefined,
};

let followAbort;

function initialLanguage() {
  const requested = new URLSearchParams(location.search).get('lang');
  if (requested === 'zh-CN' || requested === 'zh') return 'zh-CN';
  if (requested === 'en') return 'en';
  return localStorage.getItem(languageKey) === 'zh-CN' ? 'zh-CN' : 'en';
}

function t() {
  return texts[state.lang];
}

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'on') {
      for (const [type, handler] of Object.entries(value)) node.addEventListener(type, handler);
    } else if (name === 'dataset') {
      for (const [key, entry] of Object.entries(value)) if (entry !== undefined) node.dataset[key] = String(entry);
    } else {
      node.setAttribute(name, value === true ? '' : String(value));
    }
  }
  for (const child of children.flat(Number.POSITIVE_INFINITY)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(
      typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child,
    );
  }
  return node;
}

async function api(path, { method = 'GET', body } = {}) {
  const response = await fetch(path, {
    method,
    headers: {
      authorization: `Bearer ${state.token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const payload = await response.json().catch(() => ({}));
  return { status: response.status, body: payload };
}

function hasRole(role) {
  return state.me?.roles?.includes(role) ?? false;
}

function humanize(name) {
  return humanizeIn(name, state.lang);
}

/** Never 06/12/2026: the month's name, the time and the zone (see field-format.js). */
function formatTime(iso) {
  return formatDateTime(iso, state.lang);
}

/** A field as the approval card shows it: money with its currency, dates with the month's name. */
function describe(name, value, display) {
  return describeField({ field: name, value, display: display?.[name], lang: state.lang });
}

function now() {
  return Date.now() + state.inbox.offset;
}

function timeLeft(expiresAt) {
  const seconds = Math.max(0, Math.floor((Date.parse(expiresAt) - now()) / 1000));
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = seconds % 60;
  const pad = (n) => String(n).padStart(2, '0');
  return hours > 0 ? `${hours}:${pad(minutes)}:${pad(rest)}` : `${minutes}:${pad(rest)}`;
}

function isExpired(item) {
  return item.blocked === 'expired' || Date.parse(item.expiresAt) <= now();
}

function blockOf(item) {
  return isExpired(item) ? 'expired' : item.blocked;
}

function argumentsList(args, display) {
  return el(
    'dl',
    { class: 'arguments' },
    Object.entries(args).map(([name, value]) => {
      const { label, shown } = describe(name, value, display);
      return [el('dt', {}, label), el('dd', { dataset: { field: name } }, shown)];
    }),
  );
}

/** A call's answer: pretty JSON where it is JSON, else its text. */
function answerBlock(answer) {
  let text = answer;
  try {
    text = JSON.stringify(JSON.parse(answer), null, 2);
  } catch {
    // not JSON: shown as it is
  }
  return el('pre', { class: 'answer' }, text);
}

/** What an approver must know before approving a call that already ran for the same person. */
function earlierCallNote(item) {
  const strings = t();
  const earlier = item.earlierCall;
  if (!earlier) return null;
  return el(
    'div',
    { class: 'earlier-call', role: 'note', dataset: { replays: String(earlier.replays) } },
    el(
      'p',
      {},
      el('strong', {}, strings.earlierCall(formatTime(earlier.at))),
      ' ',
      earlier.replays ? strings.earlierReplays : strings.earlierRunsAgain,
    ),
    earlier.answer === null
      ? null
      : [el('p', { class: 'answer-label' }, strings.answered), answerBlock(earlier.answer)],
    el(
      'p',
      { class: 'links' },
      el('a', { href: `#run/${encodeURIComponent(earlier.runId)}`, dataset: { link: 'earlier' } }, strings.earlierRun),
    ),
  );
}

// ---- routing ----------------------------------------------------------------

function parseRoute() {
  const hash = decodeURIComponent(location.hash.replace(/^#\/?/, ''));
  const [view, id] = hash.split('/', 2);
  if (view === 'run' && id) return { view: 'run', id };
  if (view === 'session' && id) return { view: 'session', id };
  if (view === 'audit') return { view: 'audit' };
  if (view === 'inbox') return { view: 'inbox' };
  return { view: hasRole('approver') ? 'inbox' : 'audit' };
}

async function navigate() {
  followAbort?.abort();
  followAbort = undefined;
  state.route = parseRoute();
  state.view = undefined;
  render();
  const { route } = state;
  if (route.view === 'run') await loadRun(route.id);
  else if (route.view === 'session') await loadSession(route.id);
  else if (route.view === 'audit') await loadAudit({});
}

// ---- inbox --------------------------------------------------------------------

async function followInbox() {
  for (;;) {
    try {
      await readInboxStream();
    } catch {
      // reconnect below
    }
    state.inbox.connected = false;
    renderLive();
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function readInboxStream() {
  const response = await fetch('/v1/desk/inbox/events', { headers: { authorization: `Bearer ${state.token}` } });
  if (!response.ok || response.body === null) return;
  state.inbox.connected = true;
  renderLive();
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let name = 'message';
  let data = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let newline = buffer.indexOf('\n');
    while (newline >= 0) {
      const line = buffer.slice(0, newline).replace(/\r$/, '');
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf('\n');
      if (line === '') {
        if (name === 'inbox' && data.length > 0) applyInbox(JSON.parse(data.join('\n')));
        name = 'message';
        data = [];
      } else if (line.startsWith('event:')) {
        name = line.slice(6).trim();
      } else if (line.startsWith('data:')) {
        data.push(line.slice(5).replace(/^ /, ''));
      }
    }
  }
}

function applyInbox(snapshot) {
  state.inbox.items = snapshot.approvals;
  state.inbox.offset = Date.parse(snapshot.now) - Date.now();
  const present = new Set(snapshot.approvals.map((item) => item.approvalId));
  for (const id of state.selected) if (!present.has(id)) state.selected.delete(id);
  document.body.dataset.inboxCount = String(snapshot.approvals.length);
  if (state.route?.view === 'inbox') renderInbox();
}

async function decide(approvalIds, decision, reason) {
  const result = await api('/v1/desk/decisions', {
    method: 'POST',
    body: { approvalIds, decision, ...(reason ? { reason } : {}) },
  });
  const strings = t();
  if (result.status !== 200) {
    for (const id of approvalIds) {
      state.notes.set(id, { kind: 'error', text: strings.failures[result.body?.error?.code] ?? strings.failed });
    }
  } else {
    for (const outcome of result.body.results) {
      state.notes.set(
        outcome.approvalId,
        outcome.ok
          ? { kind: 'ok', text: decidedText(outcome) }
          : { kind: 'error', code: outcome.code, text: strings.failures[outcome.code] ?? strings.failed },
      );
      if (outcome.ok) state.selected.delete(outcome.approvalId);
    }
  }
  renderInbox();
}

/** "Approved", and for a call that already ran, that approving it gave the earlier answer back. */
function decidedText(outcome) {
  const strings = t();
  const decided = strings.decided[outcome.decision] ?? outcome.decision;
  const item = state.inbox.items.find((candidate) => candidate.approvalId === outcome.approvalId);
  return outcome.decision === 'approved' && item?.earlierCall?.replays
    ? `${decided}: ${strings.earlierReplays}`
    : decided;
}

function renderInbox() {
  const strings = t();
  const view = document.getElementById('view');
  const focused = document.activeElement?.id;
  const reasons = new Map(
    [...view.querySelectorAll('textarea[data-reason-for]')].map((node) => [node.dataset.reasonFor, node.value]),
  );
  const bulkReason = view.querySelector('#bulk-reason')?.value ?? '';
  const items = state.inbox.items;
  const decidable = items.filter((item) => blockOf(item) === null);
  const list = el(
    'ol',
    { class: 'inbox', id: 'inbox-list' },
    items.map((item) => {
      const block = blockOf(item);
      const note = state.notes.get(item.approvalId);
      const reasonId = `reason-${item.approvalId}`;
      return el(
        'li',
        {
          class: 'card',
          dataset: { approvalId: item.approvalId, blocked: block ?? 'none', role: 'approval' },
        },
        el(
          'div',
          { class: 'card-head' },
          el('input', {
            type: 'checkbox',
            id: `select-${item.approvalId}`,
            class: 'select',
            'aria-label': strings.select(humanize(item.tool)),
            checked: state.selected.has(item.approvalId),
            disabled: block !== null,
            on: {
              change: (event) => {
                if (event.target.checked) state.selected.add(item.approvalId);
                else state.selected.delete(item.approvalId);
                renderInbox();
              },
            },
          }),
          el('h3', { class: 'tool' }, humanize(item.tool)),
          el(
            'span',
            { class: `countdown${block === 'expired' ? ' is-expired' : ''}`, dataset: { expiresAt: item.expiresAt } },
            block === 'expired' ? strings.expired : strings.timeLeft(timeLeft(item.expiresAt)),
          ),
        ),
        argumentsList(item.arguments, item.display),
        earlierCallNote(item),
        el(
          'p',
          { class: 'rule' },
          el('strong', {}, `${strings.rule}: `),
          el('code', {}, item.rule),
          ' · ',
          el('strong', {}, `${strings.why}: `),
          el('span', { class: 'reason' }, item.reason),
        ),
        el('p', { class: 'asked' }, strings.askedBy(item.requestedBy ?? '—', formatTime(item.createdAt))),
        block === 'four_eyes' ? el('p', { class: 'four-eyes', role: 'note' }, strings.fourEyes) : null,
        note === undefined
          ? null
          : el('p', { class: `note note-${note.kind}`, role: note.kind === 'error' ? 'alert' : 'status' }, note.text),
        block === null
          ? el(
              'div',
              { class: 'decide' },
              el('label', { for: reasonId, class: 'visually-hidden' }, strings.reasonLabel),
              el('textarea', {
                id: reasonId,
                rows: 1,
                maxlength: 500,
                placeholder: strings.reasonLabel,
                dataset: { reasonFor: item.approvalId },
              }),
              ['approve', 'reject'].map((decision) =>
                el(
                  'button',
                  {
                    type: 'button',
                    id: `${decision}-${item.approvalId}`,
                    class: decision === 'approve' ? 'primary' : 'secondary',
                    dataset: { decision },
                    on: {
                      click: () => decide([item.approvalId], decision, document.getElementById(reasonId)?.value.trim()),
                    },
                  },
                  strings[decision],
                ),
              ),
            )
          : null,
        el(
          'p',
          { class: 'links' },
          el('a', { href: `#run/${encodeURIComponent(item.runId)}`, dataset: { link: 'timeline' } }, strings.timeline),
          item.sessionId === null
            ? null
            : el(
                'a',
                { href: `#session/${encodeURIComponent(item.sessionId)}`, dataset: { link: 'session' } },
                strings.session,
              ),
        ),
      );
    }),
  );
  const toolbar = el(
    'div',
    { class: 'toolbar' },
    el(
      'label',
      { class: 'select-all' },
      el('input', {
        type: 'checkbox',
        id: 'select-all',
        checked: decidable.length > 0 && decidable.every((item) => state.selected.has(item.approvalId)),
        disabled: decidable.length === 0,
        on: {
          change: (event) => {
            for (const item of decidable) {
              if (event.target.checked) state.selected.add(item.approvalId);
              else state.selected.delete(item.approvalId);
            }
            renderInbox();
          },
        },
      }),
      strings.selectAll,
    ),
    el('label', { for: 'bulk-reason', class: 'visually-hidden' }, strings.bulkReasonLabel),
    el('input', { id: 'bulk-reason', type: 'text', maxlength: 500, placeholder: strings.bulkReasonLabel }),
    ['approve', 'reject'].map((decision) =>
      el(
        'button',
        {
          type: 'button',
          id: `bulk-${decision}`,
          class: decision === 'approve' ? 'primary' : 'secondary',
          disabled: state.selected.size === 0,
          on: {
            click: () => decide([...state.selected], decision, document.getElementById('bulk-reason')?.value.trim()),
          },
        },
        `${decision === 'approve' ? strings.approveSelected : strings.rejectSelected} (${state.selected.size})`,
      ),
    ),
  );
  view.replaceChildren(
    el('h2', {}, strings.inboxTitle),
    toolbar,
    items.length === 0 ? el('p', { class: 'empty' }, strings.inboxEmpty) : list,
  );
  for (const [id, value] of reasons) {
    const node = view.querySelector(`textarea[data-reason-for="${CSS.escape(id)}"]`);
    if (node !== null) node.value = value;
  }
  const bulk = view.querySelector('#bulk-reason');
  if (bulk !== null) bulk.value = bulkReason;
  if (focused) document.getElementById(focused)?.focus();
}

function tickCountdowns() {
  const strings = t();
  for (const node of document.querySelectorAll('.countdown[data-expires-at]')) {
    const card = node.closest('[data-approval-id]');
    const item = state.inbox.items.find((candidate) => candidate.approvalId === card?.dataset.approvalId);
    if (item === undefined) continue;
    if (isExpired(item) && card.dataset.blocked !== 'expired') {
      renderInbox();
      return;
    }
    node.textContent = isExpired(item) ? strings.expired : strings.timeLeft(timeLeft(item.expiresAt));
  }
}

// ---- run timeline -----------------------------------------------------------

async function loadRun(runId) {
  const result = await api(`/v1/desk/runs/${encodeURIComponent(runId)}`);
  if (state.route?.view !== 'run' || state.route.id !== runId) return;
  if (result.status !== 200) {
    state.view = { kind: 'error', status: result.status };
    render();
    return;
  }
  state.view = { kind: 'run', ...result.body };
  render();
  const run = result.body.run;
  if ((run.status === 'running' || run.status === 'awaiting_approval') && followAbort === undefined) {
    followRun(runId, run.lastSeq);
  }
}

async function followRun(runId, lastSeq) {
  const controller = new AbortController();
  followAbort = controller;
  let seq = lastSeq;
  let pending;
  while (!controller.signal.aborted) {
    try {
      const response = await fetch(`/v1/runs/${encodeURIComponent(runId)}/events`, {
        headers: { authorization: `Bearer ${state.token}`, 'last-event-id': String(seq) },
        signal: controller.signal,
      });
      if (!response.ok || response.body === null) break;
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        for (const match of buffer.matchAll(/^id: (\d+)$/gm)) seq = Math.max(seq, Number(match[1]));
        buffer = buffer.slice(buffer.lastIndexOf('\n') + 1);
        clearTimeout(pending);
        pending = setTimeout(() => {
          if (!controller.signal.aborted) loadRun(runId);
        }, 150);
      }
    } catch {
      if (controller.signal.aborted) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const check = await api(`/v1/desk/runs/${encodeURIComponent(runId)}`);
    if (
      check.status !== 200 ||
      (check.body.run.status !== 'running' && check.body.run.status !== 'awaiting_approval')
    ) {
      if (!controller.signal.aborted) loadRun(runId);
      break;
    }
  }
  if (followAbort === controller) followAbort = undefined;
}

function renderRun(view) {
  const strings = t();
  const { run, steps } = view;
  const live = run.status === 'running' || run.status === 'awaiting_approval';
  return [
    el('h2', {}, `${strings.runTitle} `, el('code', {}, run.runId)),
    el(
      'dl',
      { class: 'facts' },
      el('dt', {}, strings.runStatus),
      el('dd', { id: 'run-status', dataset: { status: run.status } }, humanize(run.status)),
      el('dt', {}, strings.requestedBy),
      el('dd', {}, run.requestedBy ?? '—'),
      el('dt', {}, strings.session),
      el('dd', {}, el('a', { href: `#session/${encodeURIComponent(run.sessionId)}` }, run.sessionId)),
    ),
    live ? el('p', { class: 'following', role: 'status' }, strings.following) : null,
    el('ol', { class: 'timeline', id: 'timeline' }, steps.map(renderStep)),
  ];
}

function renderStep(step) {
  const strings = t();
  if (step.kind === 'run') {
    const title =
      step.event === 'start'
        ? strings.runStart
        : step.event === 'end'
          ? strings.runEnd(humanize(step.stopReason))
          : strings.runError(step.code);
    const details = [
      step.tokens === null ? null : strings.tokens(step.tokens.input, step.tokens.output),
      step.durationMs === null ? null : strings.ms(step.durationMs),
      step.cost === null ? null : strings.cost(step.cost),
    ].filter(Boolean);
    return el(
      'li',
      { class: `step step-run step-${step.event}`, dataset: { kind: 'run', event: step.event } },
      el('span', { class: 'step-title' }, title),
      details.length === 0 ? null : el('span', { class: 'step-meta' }, details.join(' · ')),
      el('time', { datetime: step.at }, formatTime(step.at)),
    );
  }
  if (step.kind === 'model') {
    return el(
      'li',
      { class: 'step step-model', dataset: { kind: 'model', step: step.step } },
      el('span', { class: 'step-title' }, `${strings.modelCall} · ${strings.step(step.step)}`),
      el(
        'span',
        { class: 'step-meta' },
        [
          strings.ms(step.durationMs),
          step.tokens === null ? null : strings.tokens(step.tokens.input, step.tokens.output),
          step.toolCalls > 0 ? strings.proposedCalls(step.toolCalls) : null,
        ]
          .filter(Boolean)
          .join(' · '),
      ),
      step.text === '' ? null : el('blockquote', {}, step.text),
    );
  }
  const badges = [
    el(
      'span',
      { class: `badge badge-${step.validation}`, dataset: { validation: step.validation } },
      strings.validation[step.validation],
    ),
    step.gate === null
      ? null
      : el(
          'span',
          { class: 'badge', dataset: { gate: step.gate.decision } },
          `${strings.gate}: ${step.gate.decision}${step.gate.rule === null ? '' : ` (${step.gate.rule})`}`,
        ),
    step.approval === null
      ? null
      : el(
          'span',
          { class: 'badge', dataset: { approval: step.approval.status } },
          `${strings.approval}: ${strings.approvedBy(step.approval.status, step.approval.approver)}`,
        ),
    el('span', { class: `badge badge-${step.result}`, dataset: { result: step.result } }, strings.result[step.result]),
    step.replayed
      ? el('span', { class: 'badge badge-replayed', dataset: { replayed: 'true' } }, strings.replayed)
      : null,
  ];
  return el(
    'li',
    { class: 'step step-tool', dataset: { kind: 'tool', tool: step.tool, toolCallId: step.toolCallId } },
    el('span', { class: 'step-title' }, `${humanize(step.tool)} · ${strings.step(step.step)}`),
    el(
      'span',
      { class: 'step-meta' },
      [step.durationMs === null ? null : strings.ms(step.durationMs), step.outcome].filter(Boolean).join(' · '),
    ),
    step.arguments === null ? null : argumentsList(step.arguments, step.display),
    el('div', { class: 'badges' }, badges),
    step.error === null ? null : el('p', { class: 'step-error' }, step.error.code),
    step.feedback === null ? null : el('pre', { class: 'step-feedback' }, step.feedback),
    step.approval?.reason ? el('p', { class: 'step-reason' }, strings.approverReason(step.approval.reason)) : null,
    step.replayOf
      ? el(
          'p',
          { class: 'step-replay', dataset: { replayOf: step.replayOf.toolCallId } },
          strings.replayedOf,
          ' ',
          el(
            'a',
            { href: `#run/${encodeURIComponent(step.replayOf.runId)}`, dataset: { link: 'original' } },
            strings.earlierRun,
          ),
        )
      : null,
    step.answer
      ? [
          el('p', { class: 'answer-label' }, step.replayed ? strings.replayAnswered : strings.answered),
          answerBlock(step.answer),
        ]
      : null,
  );
}

// ---- session ----------------------------------------------------------------

async function loadSession(sessionId) {
  const result = await api(`/v1/sessions/${encodeURIComponent(sessionId)}`);
  if (state.route?.view !== 'session' || state.route.id !== sessionId) return;
  state.view =
    result.status === 200 ? { kind: 'session', session: result.body } : { kind: 'error', status: result.status };
  render();
}

function renderSession({ session }) {
  const strings = t();
  return [
    el('h2', {}, `${strings.sessionTitle} `, el('code', {}, session.id)),
    el(
      'ol',
      { class: 'messages' },
      session.messages.map((message) =>
        el('li', { class: `message message-${message.role}`, dataset: { role: message.role } }, message.content),
      ),
    ),
    el('h3', {}, strings.runs),
    el(
      'ul',
      { class: 'runs' },
      session.runs.map((run) =>
        el(
          'li',
          {},
          el('a', { href: `#run/${encodeURIComponent(run.runId)}`, dataset: { link: 'timeline' } }, run.runId),
          ` · ${humanize(run.status)}`,
        ),
      ),
    ),
  ];
}

// ---- audit ----------------------------------------------------------------------

const auditFields = [
  ['tool', 'filterTool', 'text'],
  ['outcome', 'filterOutcome', 'text'],
  ['user', 'filterUser', 'text'],
  ['from', 'filterFrom', 'datetime-local'],
  ['to', 'filterTo', 'datetime-local'],
];

function auditQuery(filter) {
  const query = new URLSearchParams();
  for (const [name] of auditFields) {
    const value = filter[name];
    if (value === undefined || value === '') continue;
    query.set(name, name === 'from' || name === 'to' ? new Date(value).toISOString() : value);
  }
  return query;
}

async function loadAudit(filter) {
  const result = await api(`/v1/desk/audit?${auditQuery(filter)}`);
  if (state.route?.view !== 'audit') return;
  state.view =
    result.status === 200 ? { kind: 'audit', filter, ...result.body } : { kind: 'error', status: result.status };
  render();
}

async function exportAudit(filter) {
  const query = auditQuery(filter);
  query.set('format', 'ndjson');
  const response = await fetch(`/v1/desk/audit?${query}`, { headers: { authorization: `Bearer ${state.token}` } });
  if (!response.ok) return;
  const url = URL.createObjectURL(await response.blob());
  const link = el('a', { href: url, download: `arbiter-audit-${new Date().toISOString().slice(0, 10)}.ndjson` });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

const auditColumns = ['row', 'time', 'tool', 'arguments', 'user', 'decision', 'rule', 'approver', 'outcome'];

/** `replayed:ok` says which call had already run: its row where the table shows it, else its run. */
function outcomeText(row, rows) {
  if (!row.outcome.startsWith('replayed:') || row.replayOf === null || row.replayOf === undefined) return row.outcome;
  const original = rows.find(
    (candidate) => candidate.toolCallId === row.replayOf.toolCallId && !candidate.outcome.startsWith('replayed:'),
  );
  return t().replayedOutcome(row.outcome.slice('replayed:'.length), original?.auditId ?? null, row.replayOf.runId);
}

function renderAudit(view) {
  const strings = t();
  const readFilter = () =>
    Object.fromEntries(
      auditFields.map(([name]) => [name, document.getElementById(`filter-${name}`)?.value.trim() ?? '']),
    );
  const form = el(
    'form',
    {
      class: 'filters',
      id: 'audit-filters',
      on: {
        submit: (event) => {
          event.preventDefault();
          loadAudit(readFilter());
        },
      },
    },
    auditFields.map(([name, label, type]) =>
      el(
        'label',
        { for: `filter-${name}` },
        el('span', {}, strings[label]),
        el('input', { id: `filter-${name}`, name, type, value: view.filter?.[name] ?? '' }),
      ),
    ),
    el('button', { type: 'submit', class: 'primary' }, strings.filterApply),
    el(
      'button',
      { type: 'button', id: 'audit-export', class: 'secondary', on: { click: () => exportAudit(readFilter()) } },
      strings.export,
    ),
  );
  const chain = view.chain;
  const first = chain.breaks[0];
  const banner = el(
    'p',
    {
      id: 'chain',
      class: `chain chain-${chain.status}`,
      role: 'status',
      dataset: { status: chain.status, breakAt: first?.auditId },
    },
    chain.status === 'verified'
      ? `✓ ${strings.chainVerified(chain.rowsChecked)}`
      : `✗ ${strings.chainBroken(first.auditId)}`,
    first === undefined
      ? null
      : el(
          'span',
          { class: 'chain-detail', title: first.message },
          ` — ${strings.chainKinds[first.kind] ?? first.message}`,
        ),
  );
  const broken = new Set(chain.breaks.map((entry) => entry.auditId));
  const table = el(
    'table',
    { class: 'audit', id: 'audit-rows' },
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        strings.columns.map((column) => el('th', { scope: 'col' }, column)),
      ),
    ),
    el(
      'tbody',
      {},
      view.rows.map((row) =>
        el(
          'tr',
          {
            dataset: { auditId: row.auditId, broken: broken.has(row.auditId) ? 'true' : 'false' },
            class: broken.has(row.auditId) ? 'is-broken' : '',
          },
          [
            row.auditId,
            formatTime(row.at),
            row.tool,
            Object.entries(row.arguments)
              .map(([name, value]) => {
                const { label, shown } = describe(name, value, row.display);
                return `${label}: ${shown}`;
              })
              .join(' · '),
            row.userId ?? '—',
            row.decision,
            row.rule ?? '—',
            row.approver ?? '—',
            outcomeText(row, view.rows),
          ].map((value, index) =>
            el('td', { 'data-label': strings.columns[index], dataset: { column: auditColumns[index] } }, String(value)),
          ),
        ),
      ),
    ),
  );
  return [
    el('h2', {}, strings.auditTitle),
    form,
    banner,
    view.rows.length === 0 ? el('p', { class: 'empty' }, strings.noRows) : el('div', { class: 'table-wrap' }, table),
  ];
}

// ---- page -----------------------------------------------------------------------

function renderLive() {
  const node = document.getElementById('live');
  const strings = t();
  const connected = state.inbox.connected;
  node.dataset.state = hasRole('approver') ? (connected ? 'live' : 'reconnecting') : 'idle';
  node.textContent = hasRole('approver') ? (connected ? strings.live : strings.reconnecting) : '';
}

function render() {
  const strings = t();
  document.documentElement.lang = state.lang;
  document.title = `arbiter · ${strings.title}`;
  for (const node of document.querySelectorAll('[data-text]')) {
    const value = strings[node.dataset.text];
    if (typeof value === 'string') node.textContent = value;
  }
  const language = document.getElementById('language');
  language.textContent = state.lang === 'en' ? '中文' : 'English';
  language.lang = state.lang === 'en' ? 'zh-CN' : 'en';
  document.getElementById('nav-inbox').hidden = !hasRole('approver');
  for (const link of document.querySelectorAll('#nav a')) {
    const current = link.getAttribute('href') === `#${state.route?.view}`;
    if (current) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  document.getElementById('who').textContent =
    state.me === undefined ? '' : strings.signedInAs(state.me.userId, state.me.tenantId);
  renderLive();
  if (state.me === undefined || state.route === undefined) return;
  const view = document.getElementById('view');
  const { route } = state;
  if (route.view === 'inbox') {
    document.body.dataset.view = 'inbox';
    if (!hasRole('approver')) view.replaceChildren(el('p', { class: 'error', role: 'alert' }, strings.notAllowed));
    else renderInbox();
    return;
  }
  if (state.view?.kind === 'error') {
    const message = state.view.status === 403 ? strings.notAllowed : strings.notFound;
    view.replaceChildren(el('p', { class: 'error', role: 'alert' }, message));
    return;
  }
  if (state.view === undefined) {
    view.replaceChildren();
    return;
  }
  const parts =
    state.view.kind === 'run'
      ? renderRun(state.view)
      : state.view.kind === 'session'
        ? renderSession(state.view)
        : renderAudit(state.view);
  view.replaceChildren(...parts.filter(Boolean));
  document.body.dataset.view = state.view.kind;
}

async function signIn() {
  const demo = await fetch('/demo.json').catch(() => undefined);
  if (demo?.ok) {
    state.token = (await demo.json()).approverToken;
  } else {
    state.token = localStorage.getItem(tokenKey) ?? undefined;
  }
  if (state.token === undefined) return false;
  const me = await api('/v1/me');
  if (me.status !== 200) {
    localStorage.removeItem(tokenKey);
    document.getElementById('token-error').textContent = t().tokenRefused;
    return false;
  }
  state.me = me.body;
  return true;
}

async function start() {
  render();
  document.getElementById('language').addEventListener('click', () => {
    state.lang = state.lang === 'en' ? 'zh-CN' : 'en';
    localStorage.setItem(languageKey, state.lang);
    const url = new URL(location.href);
    url.searchParams.set('lang', state.lang);
    history.replaceState(null, '', url);
    render();
  });
  document.getElementById('token-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    localStorage.setItem(tokenKey, document.getElementById('token-input').value.trim());
    if (await signIn()) {
      document.getElementById('token-panel').hidden = true;
      await begin();
    }
  });
  if (!(await signIn())) {
    document.getElementById('token-panel').hidden = false;
    document.getElementById('token-input').focus();
    return;
  }
  await begin();
}

async function begin() {
  window.addEventListener('hashchange', () => {
    navigate();
    document.getElementById('view').focus();
  });
  if (hasRole('approver')) followInbox();
  setInterval(tickCountdowns, 1000);
  await navigate();
  document.body.dataset.ready = 'true';
}

start();

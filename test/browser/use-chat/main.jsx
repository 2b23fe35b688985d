// The page around the README's `Chat` component (copied beside this file as chat.tsx by the test):
// whose token and which chat come from the address, so a reload opens the same chat.
import { createRoot } from 'react-dom/client';
import { Chat } from './chat.tsx';

const parameters = new URLSearchParams(location.search);
createRoot(document.getElementById('root')).render(
  <Chat chatId={parameters.get('chat') ?? 'chat'} token={parameters.get('token') ?? ''} />,
);
document.body.dataset.ready = 'true';

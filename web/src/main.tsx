import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './components/app.js';
import './styles.css';

// Opened with the token in the address (`?token=`): the server has put it in an HttpOnly cookie, so it
// leaves the address bar and the history (the server redirects when it can; after a link from another
// site it cannot, and this does it).
const address = new URL(location.href);
if (address.searchParams.has('token')) {
  address.searchParams.delete('token');
  history.replaceState(history.state, '', `${address.pathname}${address.search}${address.hash}`);
}

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
